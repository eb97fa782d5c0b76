import { isPlainObject, isRecord } from '../../expression/value-kind.js';
import { isLoadedFlow } from '../load-flow.js';
import type { Flow, LoadedNode } from '../flow.js';
import { pathTo } from './flow-scope.js';

type Key = string | number;

/**
 * The flows a node embeds (`childFlow`, `child_flow`, `branches[].flow`, a plugin's own), found
 * in its loaded definition, each with the document path it was written at.
 */
export function childFlowsOf(
  node: LoadedNode,
  raw: Record<string, unknown>,
  path: string,
): Array<{ flow: Flow; path: string }> {
  const found: Array<{ flow: Flow; keys: Key[] }> = [];
  collect(node.def, [], found, 0);
  return found.map(({ flow, keys }) => ({
    flow,
    path: pathTo(path, ...(locate(raw, flow.document, 0) ?? rawSpelling(raw, keys))),
  }));
}

function collect(
  value: unknown,
  keys: Key[],
  found: Array<{ flow: Flow; keys: Key[] }>,
  depth: number,
): void {
  if (isLoadedFlow(value)) {
    found.push({ flow: value, keys });
    return;
  }
  if (depth >= 3) return;
  if (Array.isArray(value))
    value.forEach((item: unknown, i) => collect(item, [...keys, i], found, depth + 1));
  else if (isPlainObject(value))
    for (const key of Object.keys(value)) collect(value[key], [...keys, key], found, depth + 1);
}

/** An embedded object is the child's `document` itself: find it by identity. */
function locate(value: unknown, target: object, depth: number): Key[] | undefined {
  if (value === target) return [];
  if (depth >= 3) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = locate(value[i], target, depth + 1);
      if (inner) return [i, ...inner];
    }
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      const inner = locate(value[key], target, depth + 1);
      if (inner) return [key, ...inner];
    }
  }
  return undefined;
}

/** A child written as JSON text has no object to find: map the definition's key back. */
function rawSpelling(raw: Record<string, unknown>, keys: Key[]): Key[] {
  if (keys[0] === 'childFlow' && raw.childFlow === undefined && raw.child_flow !== undefined)
    return ['child_flow', ...keys.slice(1)];
  return keys;
}
