import { isRecord } from '../../expression/value-kind.js';
import { pathTo } from './flow-scope.js';
import { isKnownKey, type Shape } from './known-keys.js';

/** Keys whose string value is meant as a node id, in any engine's vocabulary. */
const TARGET_KEYS: ReadonlySet<string> = new Set([
  'next',
  'else_next',
  'elseNext',
  'default',
  'then',
  'else',
  'goto',
]);
const MAX_DEPTH = 6;

export interface IgnoredReferences {
  /** Ids of this flow's nodes written anywhere under ignored keys. */
  readonly ids: string[];
  /** Strings under target-like keys that name no node. */
  readonly missing: Array<{ readonly id: string; readonly path: string }>;
}

/**
 * Node ids written under keys the engine ignores (a switch's `cases`, a `default`). They do not
 * route anything, but the author meant them to: the graph counts them as edges, so one ignored
 * key yields one finding (the key) instead of also calling every node behind it unreachable.
 */
export function ignoredReferences(
  raw: Record<string, unknown>,
  known: { shape: Shape; extra: readonly string[] } | null,
  path: string,
  nodeIds: ReadonlyMap<string, unknown>,
): IgnoredReferences {
  const found: { ids: string[]; missing: Array<{ id: string; path: string }> } = {
    ids: [],
    missing: [],
  };
  if (known === null) return found;
  for (const key of Object.keys(raw)) {
    if (!isKnownKey(key, known)) scan(raw[key], key, pathTo(path, key), nodeIds, found, 0);
  }
  return found;
}

function scan(
  value: unknown,
  key: string | number,
  path: string,
  nodeIds: ReadonlyMap<string, unknown>,
  found: { ids: string[]; missing: Array<{ id: string; path: string }> },
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string' || typeof value === 'number') {
    const id = String(value);
    if (nodeIds.has(id)) found.ids.push(id);
    else if (typeof key === 'string' && TARGET_KEYS.has(key) && typeof value === 'string' && id)
      found.missing.push({ id, path });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item: unknown, i) => scan(item, i, pathTo(path, i), nodeIds, found, depth + 1));
  } else if (isRecord(value) && !Array.isArray(value.nodes)) {
    // An object with `nodes` is an embedded flow: its ids are its own.
    for (const k of Object.keys(value))
      scan(value[k], k, pathTo(path, k), nodeIds, found, depth + 1);
  }
}
