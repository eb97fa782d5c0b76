import type { LoadedNode } from '../flow.js';
import type { FlowIssue } from './flow-issue.js';
import { pathTo, pickKey } from './flow-scope.js';

/** Answers whether the host can resolve a flow (the flow store, in the durable tier). */
export type FlowExists = (flowId: string, version: string | null) => Promise<boolean> | boolean;

/** A `reference` node's target flow, to be checked against the host's flows. */
export interface ReferenceSite {
  readonly flowId: string;
  readonly version: string | null;
  readonly path: string;
  readonly nodeId: string;
}

/** docs/flow-format.md §3.8: `flow_id` · `flowID`, `flow_version` · `flowVersion` (first spelling wins). */
export function referenceSite(
  node: LoadedNode,
  raw: Record<string, unknown>,
  path: string,
): ReferenceSite | null {
  if (node.def.type !== 'reference') return null;
  const idKey = pickKey(raw, 'flow_id', 'flowID');
  const flowId = idKey === undefined ? undefined : raw[idKey];
  if (typeof flowId !== 'string' || idKey === undefined) return null;
  const versionKey = pickKey(raw, 'flow_version', 'flowVersion');
  const version = versionKey === undefined ? null : raw[versionKey];
  return {
    flowId,
    version: typeof version === 'string' || typeof version === 'number' ? String(version) : null,
    path: pathTo(path, idKey),
    nodeId: node.def.id,
  };
}

/**
 * Asks `flowExists` once per distinct flow id and version. A reference to a missing flow fails
 * its node when it runs; a check that throws is reported, never thrown.
 */
export async function referenceIssues(
  sites: readonly ReferenceSite[],
  flowExists: FlowExists,
): Promise<FlowIssue[]> {
  const answers = new Map<string, Promise<boolean | Error>>();
  const ask = (site: ReferenceSite): Promise<boolean | Error> => {
    const key = JSON.stringify([site.flowId, site.version]);
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = settle(() => flowExists(site.flowId, site.version));
      answers.set(key, answer);
    }
    return answer;
  };
  const issues: FlowIssue[] = [];
  for (const site of sites) {
    const exists = await ask(site);
    const named = `flow '${site.flowId}'${site.version === null ? '' : ` version ${site.version}`}`;
    if (exists instanceof Error) {
      issues.push({
        severity: 'warning',
        code: 'flow_check_failed',
        path: site.path,
        nodeId: site.nodeId,
        message: `could not check whether ${named} exists: ${exists.message}`,
      });
    } else if (!exists) {
      issues.push({
        severity: 'error',
        code: 'flow_not_found',
        path: site.path,
        nodeId: site.nodeId,
        message: `${named} does not exist: the reference node fails when it runs`,
      });
    }
  }
  return issues;
}

async function settle(check: () => Promise<boolean> | boolean): Promise<boolean | Error> {
  try {
    return Boolean(await check());
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
