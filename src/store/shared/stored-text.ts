import { StateSerializationError } from '../../errors.js';
import { isJsonbSafe } from '../../state/jsonb-safe-string.js';
import type { ExecutionState } from '../../state/execution-state.js';

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

/** Throws StateSerializationError (nothing written) for a key field no backend can index. */
export function assertStorableKeys(state: ExecutionState): void {
  for (const field of KEY_FIELDS) {
    const value: unknown = state[field];
    if (typeof value === 'string' && !isStorableText(value)) {
      throw new StateSerializationError(
        `state.${field}`,
        'a string holding U+0000 or a lone surrogate',
      );
    }
  }
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
