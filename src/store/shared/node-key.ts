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
