import { isStorableText } from '../store/shared/stored-text.js';
import { ApiProblem } from './problem.js';

/** Control-store pages continue after an id; the API hands it out opaque (base64url JSON). */
export function encodeCursor(after: string | null): string | null {
  return after === null
    ? null
    : Buffer.from(JSON.stringify({ a: after }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown };
    // Text no store can hold is not one of ours either (a forged cursor, not a 500).
    if (typeof value.a === 'string' && isStorableText(value.a)) return value.a;
  } catch {
    // fall through: a cursor we did not make
  }
  throw badCursor();
}

export function badCursor(): ApiProblem {
  return new ApiProblem('invalid_request', 'the cursor is not one this API returned', {
    errors: [{ path: 'query.cursor', message: 'pass back nextCursor unchanged' }],
  });
}

/**
 * One page of a list the server holds whole (API keys, workers: a handful each), in the same
 * `limit` / `cursor` contract as the stored lists: the cursor names the last item given.
 */
export function pageOfList<T>(
  all: readonly T[],
  idOf: (item: T) => string,
  limit: number,
  cursor: string | undefined,
  /** `all` is in ascending id order: a page resumes after an item that has gone since. */
  byId = false,
): { items: T[]; nextCursor: string | null } {
  const after = decodeCursor(cursor);
  let start = 0;
  if (after !== null && byId) {
    const next = all.findIndex((item) => idOf(item) > after);
    start = next < 0 ? all.length : next;
  } else if (after !== null) {
    const index = all.findIndex((item) => idOf(item) === after);
    if (index < 0) throw badCursor();
    start = index + 1;
  }
  const items = all.slice(start, start + limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: start + limit < all.length && last !== undefined ? encodeCursor(idOf(last)) : null,
  };
}
