import type { ApiServices } from '../api-services.js';
import { ApiProblem } from '../problem.js';
import { documentFromField, type FlowDocument } from './flow-document.js';
import type { FlowVersions } from '../../control/flow-versions.js';

/** Where a dry-run's flow comes from: exactly one of `flow` and `flowId` (+ `version`). */
export interface DryRunSource {
  flow?: Record<string, unknown> | string | undefined;
  flowId?: string | undefined;
  version?: string | undefined;
}

/**
 * The document a dry-run runs: inline (an object, or JSON/YAML text), the tenant's version
 * `flowId` + `version` (a draft too: trying a draft is what a dry-run is for), or without a
 * version the latest published — what `POST /v1/executions {flowId}` would start.
 */
export async function dryRunDocument(
  services: ApiServices,
  catalog: FlowVersions,
  tenantId: string,
  source: DryRunSource,
): Promise<FlowDocument> {
  if ((source.flow === undefined) === (source.flowId === undefined))
    throw new ApiProblem('invalid_request', 'give either flow (a document) or flowId', {
      errors: [{ path: 'body.flowId', message: 'exactly one of flow and flowId' }],
    });
  if (source.flow !== undefined) {
    if (source.version !== undefined)
      throw new ApiProblem('invalid_request', 'version goes with flowId, not with an inline flow', {
        errors: [{ path: 'body.version', message: 'only with flowId' }],
      });
    return documentFromField(source.flow);
  }
  const flowId = source.flowId!;
  const version = source.version ?? null;
  const saved = version === null ? null : await catalog.get(tenantId, flowId, version);
  if (saved) return saved.document;
  // A version published outside the catalog (an inline start that named it) runs too.
  const stored = await services.flows.getByVersion(flowId, version, { tenantId });
  if (stored) return stored.document;
  throw new ApiProblem(
    'not_found',
    version === null
      ? `no published version of flow '${flowId}'`
      : `flow '${flowId}' has no version '${version}'`,
    { errors: [{ path: version === null ? 'body.flowId' : 'body.version', message: 'not found' }] },
  );
}
