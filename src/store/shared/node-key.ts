import { StateCorruptError } from '../../errors.js';
import {
  escapeUnsafeString,
  isJsonbSafe,
  unescapeUnsafeString,
} from '../../state/jsonb-safe-string.js';

/**
 * `$NODE` keys as stored in a `node_id` text column. A node id may be any string, but
 * PostgreSQL text rejects U+0000 and UTF-8 drivers replace lone surrogates, so the column holds
 * the codec's reversible escape (`\` doubled, U+0000 and lone surrogates spelled `\uXXXX`).
 * Ordinary ids are stored as themselves.
 */
export function toNodeKey(nodeId: string): string {
  // Nearly every id escapes to itself: skip the regex replace for those.
  return isJsonbSafe(nodeId) && !nodeId.includes('\\') ? nodeId : escapeUnsafeString(nodeId);
}

export function fromNodeKey(key: string): string {
  if (!key.includes('\\')) return key; // no escape in it: the id itself
  const nodeId = unescapeUnsafeString(key);
  if (nodeId === undefined)
    throw new StateCorruptError(`stored node id ${JSON.stringify(key)} is not a valid escape`);
  return nodeId;
}

/**
 * A node's timing entry (its `timings` and `attempts` values) is stored beside its result,
 * under `\t` + the node key. No node key starts that way (a node key's `\` is always followed
 * by `\` or `u`), so the two kinds never collide, whatever the node ids.
 */
const TIMING_PREFIX = '\\t';

export function timingKey(nodeId: string): string {
  return TIMING_PREFIX + toNodeKey(nodeId);
}

/** What a stored entry key names: a node's result or its timing entry. */
export interface EntryRef {
  kind: 'result' | 'timing';
  nodeId: string;
}

export function parseEntryKey(key: string): EntryRef {
  return key.startsWith(TIMING_PREFIX)
    ? { kind: 'timing', nodeId: fromNodeKey(key.slice(TIMING_PREFIX.length)) }
    : { kind: 'result', nodeId: fromNodeKey(key) };
}

/** Where an entry lives in the state, for errors: `$NODE.<id>` or `state.timings.<id>`. */
export function entryPath(key: string): string {
  const { kind, nodeId } = parseEntryKey(key);
  return kind === 'result' ? `$NODE.${nodeId}` : `state.timings.${nodeId}`;
}
