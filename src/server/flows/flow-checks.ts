import { FlowDefinitionError } from '../../errors/flow-definition-errors.js';
import { analyzeDocument } from '../../flow/analysis/analyze-document.js';
import { hasErrors, type FlowIssue } from '../../flow/analysis/flow-issue.js';
import type { FlowExists } from '../../flow/analysis/reference-issues.js';
import { flowShape, type FlowShape } from '../../flow/flow-shape.js';
import type { ApiServices } from '../api-services.js';
import { ApiProblem } from '../problem.js';
import { loadForDrawing } from './document-graph.js';
import { documentFromField, type FlowDocument } from './flow-document.js';

export interface CheckScope {
  tenantId: string;
  /** The version being saved or published: a `reference` to itself (recursion) resolves. */
  self?: { flowId: string; version: string };
  /**
   * A `reference` to a flow the tenant has not published is an error when the flow is about to
   * run (publish, validate), a warning in a draft (it may be published first).
   */
  references: 'error' | 'warning';
}

/**
 * The static analysis of docs/validate.md, as the server runs it: the server's node registry,
 * `reference` targets looked up among the tenant's published flows. Never throws.
 */
export async function checkDocument(
  services: ApiServices,
  document: unknown,
  scope: CheckScope,
): Promise<FlowIssue[]> {
  const issues = await analyzeDocument(document, {
    registry: services.registry,
    flowExists: publishedIn(services, scope),
  });
  if (scope.references === 'error') return issues;
  return issues.map((issue) =>
    issue.code === 'flow_not_found' ? { ...issue, severity: 'warning' } : issue,
  );
}

export interface Validation {
  issues: FlowIssue[];
  /** The document's graph as far as it loads; null when it cannot be read at all. */
  graph: FlowShape | null;
}

/**
 * `POST /v1/flows/validate`: a document that cannot even be read gives its reasons as issues.
 * It is loaded once: that load is analysed (when it has no issue) and drawn.
 */
export async function validateField(
  services: ApiServices,
  flow: unknown,
  scope: CheckScope,
): Promise<Validation> {
  let document: FlowDocument;
  try {
    document = documentFromField(flow);
  } catch (error) {
    if (!(error instanceof FlowDefinitionError)) throw error;
    return { issues: unreadable(error), graph: null };
  }
  const loaded = loadForDrawing(document, services.registry);
  const analysed = loaded && loaded.issues.length === 0 ? loaded.flow : document;
  return {
    issues: await checkDocument(services, analysed, scope),
    graph: loaded ? flowShape(loaded.flow) : null,
  };
}

function unreadable(error: FlowDefinitionError): FlowIssue[] {
  return error.issues.map((issue) => ({
    severity: 'error',
    code: 'definition_error',
    path: issue.path,
    nodeId: null,
    message: issue.message,
  }));
}

/** 422 `invalid_flow` when any issue is an error; every issue is listed, errors first. */
export function refuseErrors(issues: readonly FlowIssue[]): void {
  if (!hasErrors(issues)) return;
  const ordered = [
    ...issues.filter((issue) => issue.severity === 'error'),
    ...issues.filter((issue) => issue.severity !== 'error'),
  ];
  const count = ordered.filter((issue) => issue.severity === 'error').length;
  throw new ApiProblem(
    'invalid_flow',
    `the flow has ${count} error${count === 1 ? '' : 's'}: ${ordered[0]!.message}`,
    {
      errors: ordered.map((issue) => ({
        path: issue.path,
        message: issueMessage(issue),
        severity: issue.severity,
        code: issue.code,
        nodeId: issue.nodeId,
        ...(issue.suggestion === undefined ? {} : { suggestion: issue.suggestion }),
      })),
    },
  );
}

/** `error unknown_target: … (did you mean 'end'?)`: severity and code stay readable in a problem. */
function issueMessage(issue: FlowIssue): string {
  const hint = issue.suggestion === undefined ? '' : ` (suggestion: '${issue.suggestion}')`;
  return `${issue.severity} ${issue.code}: ${issue.message}${hint}`;
}

function publishedIn(services: ApiServices, scope: CheckScope): FlowExists {
  return async (flowId, version) => {
    const { self } = scope;
    if (self && flowId === self.flowId && (version === null || version === self.version))
      return true;
    return (
      (await services.flows.getByVersion(flowId, version, { tenantId: scope.tenantId })) !== null
    );
  };
}
