import { StateSerializationError } from '../../errors/state-errors.js';
import { isJsonbSafe } from '../../state/jsonb-safe-string.js';
import type { ExecutionState } from '../../state/execution-state.js';
import { overUtf8Bytes } from '../../util/utf8.js';
import { entryPath } from './node-key.js';

/**
 * Identifiers that become indexed text columns (or key parts) must survive every backend
 * unchanged: PostgreSQL `text` rejects U+0000, and SQLite and `pg` turn a lone surrogate into
 * U+FFFD when they write UTF-8. Every store applies the same rule, so a state that one backend
 * refuses is refused by all of them (the memory store included).
 */
export function isStorableText(text: string): boolean {
  return isJsonbSafe(text);
}

const KEY_FIELDS = ['executionId', 'tenantId', 'flowId', 'flowVersion', 'flowHash'] as const;

/**
 * UTF-8 bytes an id may take (an execution's ids, a node id): PostgreSQL refuses an index entry
 * past ≈ 2.7 KB, and its indexes hold up to four of them. The same bound on every store.
 */
export const MAX_KEY_BYTES = 512;

/**
 * Throws StateSerializationError (nothing written) for a key field no backend can index, or an
 * entry key (a node id) longer than {@link MAX_KEY_BYTES}.
 */
export function assertStorableKeys(
  state: ExecutionState,
  entries: readonly { key: string }[] = [],
): void {
  for (const field of KEY_FIELDS) {
    const value: unknown = state[field];
    if (typeof value !== 'string') continue;
    if (!isStorableText(value))
      throw new StateSerializationError(
        `state.${field}`,
        'a string holding U+0000 or a lone surrogate',
      );
    if (overUtf8Bytes(value, MAX_KEY_BYTES))
      throw new StateSerializationError(`state.${field}`, tooLongType(value));
  }
  // An entry key is the node id with a 2-byte prefix (timings) or escapes: a little room more.
  for (const entry of entries)
    if (overUtf8Bytes(entry.key, MAX_KEY_BYTES + 8))
      throw new StateSerializationError(entryPath(entry.key), tooLongType(entry.key));
}

function tooLongType(text: string): string {
  return `a string of ${Buffer.byteLength(text, 'utf8')} UTF-8 bytes (ids hold at most ${MAX_KEY_BYTES})`;
}

/** Lease owners are worker ids written to a text column: same rule, a programming error. */
export function assertStorableOwner(owner: string): void {
  if (owner === '' || !isStorableText(owner)) {
    throw new RangeError(
      'lease owner must be a non-empty string without U+0000 or lone surrogates',
    );
  }
}

/** A positive whole number of milliseconds; anything else is a programming error. */
export function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive integer, got ${String(ttlMs)}`);
}
