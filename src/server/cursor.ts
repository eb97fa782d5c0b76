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
    if (typeof value.a === 'string') return value.a;
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
