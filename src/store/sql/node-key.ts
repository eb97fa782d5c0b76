import { StateCorruptError } from '../../errors.js';
import { escapeUnsafeString, unescapeUnsafeString } from '../../state/jsonb-safe-string.js';

/**
 * `$NODE` keys as stored in a `node_id` text column. A node id may be any string, but
 * PostgreSQL text rejects U+0000 and UTF-8 drivers replace lone surrogates, so the column holds
 * the codec's reversible escape (`\` doubled, U+0000 and lone surrogates spelled `\uXXXX`).
 * Ordinary ids are stored as themselves.
 */
export function toNodeKey(nodeId: string): string {
  return escapeUnsafeString(nodeId);
}

export function fromNodeKey(key: string): string {
  const nodeId = unescapeUnsafeString(key);
  if (nodeId === undefined)
    throw new StateCorruptError(`stored node id ${JSON.stringify(key)} is not a valid escape`);
  return nodeId;
}
