import type { ControlQuery } from '../control-store.js';

/**
 * The id range of one control list query, in code-point order, which is the byte order of the
 * ids' UTF-8 text: how SQLite (BINARY), PostgreSQL (`COLLATE "C"`) and Redis (ZRANGEBYLEX,
 * memcmp) all compare text. It equals JavaScript's code-unit order except between a character
 * above U+FFFF and one in U+E000–U+FFFF at the same position (ids that do not mix the two sort
 * the same everywhere; every id of `sortableId` is ASCII).
 */
export interface IdRange {
  /** Keyset cursor: the last id of the previous page (exclusive), or null. */
  after: string | null;
  /** The prefix itself, the lowest id it keeps (inclusive); null without a prefix. */
  from: string | null;
  /** The first id past every id with the prefix (exclusive); null when there is none. */
  to: string | null;
  desc: boolean;
}

export function idRange(query: ControlQuery): IdRange {
  const prefix = query.prefix ?? '';
  return {
    after: query.after ?? null,
    from: prefix === '' ? null : prefix,
    to: prefix === '' ? null : prefixEnd(prefix),
    desc: query.order === 'desc',
  };
}

const MAX_CODE_POINT = 0x10ffff;

/**
 * The least string greater than every string that starts with `prefix` (code-point order):
 * the prefix with its last code point raised by one, after dropping trailing U+10FFFF (which
 * cannot be raised). Ids starting with `prefix` are exactly those in [prefix, prefixEnd).
 * Unlike `prefix || U+FFFF` it also bounds ids that continue with a character above U+FFFF.
 * Null when no such string exists (a prefix of U+10FFFF only): the range is open above.
 */
export function prefixEnd(prefix: string): string | null {
  const points = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (points.length > 0 && points.at(-1) === MAX_CODE_POINT) points.pop();
  const last = points.pop();
  if (last === undefined) return null;
  // Surrogate code points never occur in well-formed text: step over them.
  points.push(last === 0xd7ff ? 0xe000 : last + 1);
  return String.fromCodePoint(...points);
}
