import { parseCondition } from '../../expression/condition.js';
import type { FlowLoader } from '../flow-loader.js';
import { resolveLimits, type RuntimeLimits } from '../runtime-limits.js';
import type { LoadedNode } from '../flow.js';
import type { FlowIssue } from './flow-issue.js';
import { pathTo } from './flow-scope.js';

/**
 * The warnings a node's own loading and `validate` produce (an unknown `resultType`, a
 * condition that can never match, an HTTP body a GET drops...), as issues with paths. The
 * node's `load` is run again against a loader that only listens: `Flow.warnings` holds the same
 * findings as text, but text is not something to parse paths back out of.
 */
export function loadWarnings(
  node: LoadedNode,
  raw: Record<string, unknown>,
  path: string,
): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const nodeId = node.def.id;
  const push = (code: 'node_warning' | 'condition_ignored', at: string, message: string): void => {
    issues.push({ severity: 'warning', code, path: at, nodeId, message });
  };
  const { nodeType } = node;
  try {
    if (nodeType.load)
      nodeType.load(parsedFields(node, raw), listeningLoader(path, resolveLimits(undefined), push));
  } catch {
    // The real load succeeded; a load that trips over the listening loader says nothing here.
  }
  try {
    for (const warning of nodeType.validate?.(node.def) ?? [])
      push('node_warning', path, String(warning));
  } catch {
    // validate is the node type's code: a crash in it must not stop the analysis.
  }
  return issues;
}

/** What the loader hands to `load`: the schema's output, as in load-flow.ts. */
function parsedFields(node: LoadedNode, raw: Record<string, unknown>): Record<string, unknown> {
  const schema = node.nodeType.schema as
    { safeParse?: (v: unknown) => { success: boolean; data?: unknown } } | undefined;
  const result = schema?.safeParse?.(raw);
  const data = result?.success ? result.data : raw;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : raw;
}

function listeningLoader(
  path: string,
  limits: RuntimeLimits,
  push: (code: 'node_warning' | 'condition_ignored', at: string, message: string) => void,
): FlowLoader {
  return {
    path,
    limits,
    // Child flows are analysed as flows of their own, with their own findings.
    childFlow: () => null,
    requiredChildFlow: () => null,
    condition(raw, field) {
      if (raw !== undefined && raw !== null)
        parseCondition(raw, {
          warn: (message) => push('condition_ignored', pathTo(path, field), message),
          issue: () => {},
        });
      return null;
    },
    typeSchema: () => null,
    duration: () => null,
    issue: () => {},
    warn: (message) => push('node_warning', path, message),
  };
}
