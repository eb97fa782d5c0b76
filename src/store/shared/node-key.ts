import { StateCorruptError } from '../../errors/state-errors.js';
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
 * Beside the node results are stored a node's timing entry, under `\t` + the node key, and the
 * execution's input, under `\i`. No node key starts that way (a node key's `\` is always
 * followed by `\` or `u`), so the kinds never collide, whatever the node ids.
 */
const TIMING_PREFIX = '\\t';
export const INPUT_KEY = '\\i';

export function timingKey(nodeId: string): string {
  return TIMING_PREFIX + toNodeKey(nodeId);
}

/** What a stored entry key names: a node's result, a node's timing, or the input. */
export type EntryRef =
  { kind: 'result' | 'timing'; nodeId: string } | { kind: 'input'; nodeId: null };

export function parseEntryKey(key: string): EntryRef {
  if (key === INPUT_KEY) return { kind: 'input', nodeId: null };
  return key.startsWith(TIMING_PREFIX)
    ? { kind: 'timing', nodeId: fromNodeKey(key.slice(TIMING_PREFIX.length)) }
    : { kind: 'result', nodeId: fromNodeKey(key) };
}

/** Where an entry lives in the state, for errors: `$NODE.<id>`, `state.timings.<id>`, `$INPUT`. */
export function entryPath(key: string): string {
  const entry = parseEntryKey(key);
  if (entry.kind === 'input') return '$INPUT';
  return entry.kind === 'result' ? `$NODE.${entry.nodeId}` : `state.timings.${entry.nodeId}`;
}
