import { compareCodePoints } from '../../../util/compare-code-points.js';

/**
 * The order of `list` pages: newest first by createdAt (epoch ms, the index score), ties broken
 * by executionId descending. Equal-score members of a Redis sorted set are ordered by their
 * bytes, so ids are compared in code-point order, which is that byte order.
 */

export interface IndexEntry {
  executionId: string;
  /** createdAt, epoch ms. */
  score: number;
}

/** Negative when `a` comes before `b` in a page (newer, or same time and greater id). */
export function compareNewestFirst(a: IndexEntry, b: IndexEntry): number {
  if (a.score !== b.score) return b.score - a.score;
  return compareCodePoints(b.executionId, a.executionId);
}

/** True when `entry` comes strictly after the cursor entry. */
export function isAfter(entry: IndexEntry, cursor: IndexEntry | null): boolean {
  return cursor === null || compareNewestFirst(cursor, entry) < 0;
}
