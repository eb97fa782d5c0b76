/**
 * The order of `list` pages: newest first by createdAt (epoch ms, the index score), ties broken
 * by executionId descending. Equal-score members of a Redis sorted set are ordered by their
 * bytes, so ids are compared as UTF-8 bytes here too — the code point order the SQL stores use
 * (JavaScript's `<` compares UTF-16 units, which differs above U+FFFF).
 */

export interface IndexEntry {
  executionId: string;
  /** createdAt, epoch ms. */
  score: number;
}

/** Negative when `a` comes before `b` in a page (newer, or same time and greater id). */
export function compareNewestFirst(a: IndexEntry, b: IndexEntry): number {
  if (a.score !== b.score) return b.score - a.score;
  return Buffer.compare(Buffer.from(b.executionId, 'utf8'), Buffer.from(a.executionId, 'utf8'));
}

/** True when `entry` comes strictly after the cursor entry. */
export function isAfter(entry: IndexEntry, cursor: IndexEntry | null): boolean {
  return cursor === null || compareNewestFirst(cursor, entry) < 0;
}
