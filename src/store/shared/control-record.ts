import { StateCorruptError } from '../../errors/state-errors.js';
import type {
  ControlKey,
  ControlPage,
  ControlQuery,
  ControlRecord,
  WriteOptions,
} from '../control-store.js';
import { assertTtl, isStorableText } from './stored-text.js';

/**
 * What the SQLite, PostgreSQL and Redis control stores share about one record: how a write is
 * encoded, how a stored row comes back, which keys can be stored at all, and how a page ends.
 * Times are epoch ms of the store's clock (`Date.now()` by default), as for executions.
 */

/** One write as every backend stores it. */
export interface ControlWrite {
  /** The document as JSON text (`JSON.stringify`: U+0000 and lone surrogates come out escaped). */
  doc: string;
  /** Epoch ms, or null for a record that never expires. */
  expiresAt: number | null;
}

/**
 * Encodes a write at `now`. A document JSON cannot hold (undefined, a function) is a TypeError;
 * a ttlMs that is not a positive whole number of ms is a RangeError (nothing is written).
 */
export function controlWrite(doc: unknown, options: WriteOptions, now: number): ControlWrite {
  const text = JSON.stringify(doc) as string | undefined;
  if (text === undefined)
    throw new TypeError('a control document must be a JSON value (got undefined or a function)');
  if (options.ttlMs === undefined) return { doc: text, expiresAt: null };
  assertTtl(options.ttlMs);
  return { doc: text, expiresAt: now + options.ttlMs };
}

/**
 * Whether every backend stores `key` unchanged: PostgreSQL `text` rejects U+0000, and UTF-8
 * (SQLite, `pg`, Redis) turns a lone surrogate into U+FFFD, which could address another record.
 * Reads of such a key find nothing; writes are refused ({@link assertStorableKey}).
 */
export function isStorableKey(key: Pick<ControlKey, 'tenant' | 'id'>): boolean {
  return isStorableText(key.tenant) && isStorableText(key.id);
}

/** Writes of an unstorable key are programming errors: RangeError, nothing written. */
export function assertStorableKey(key: ControlKey): void {
  if (!isStorableKey(key))
    throw new RangeError(
      `control record ${key.collection} key: tenant and id must be text without U+0000 or lone surrogates`,
    );
}

/** `after` and `prefix` of a query must be storable text too (RangeError otherwise). */
export function assertStorableQuery(query: ControlQuery): void {
  for (const text of [query.after, query.prefix])
    if (typeof text === 'string' && !isStorableText(text))
      throw new RangeError(
        'control query after/prefix must be text without U+0000 or lone surrogates',
      );
}

/** Live at `now`: never expires, or expires later (a record expiring exactly at `now` is gone). */
export function isLive(expiresAt: number | null, now: number): boolean {
  return expiresAt === null || expiresAt > now;
}

/** A stored row back as a record; a document that is not JSON is StateCorruptError. */
export function controlRecord<T>(
  key: ControlKey,
  version: number,
  doc: string,
  expiresAt: number | null,
): ControlRecord<T> {
  let parsed: T;
  try {
    parsed = JSON.parse(doc) as T;
  } catch (error) {
    throw new StateCorruptError(
      `control record ${key.collection}/${key.id} holds a document that is not JSON`,
      { cause: error },
    );
  }
  return { key: { ...key }, version, doc: parsed, expiresAt };
}

/**
 * A page from up to `limit + 1` records in list order: the extra one only says that another
 * page exists, so `next` is null exactly on the last page.
 */
export function controlPage<T>(records: ControlRecord<T>[], limit: number): ControlPage<T> {
  const items = records.slice(0, limit);
  return { items, next: records.length > limit ? items.at(-1)!.key.id : null };
}
