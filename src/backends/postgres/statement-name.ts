import { createHash } from 'node:crypto';
import type { PoolClient, QueryResultRow } from 'pg';

const names = new Map<string, string>();

/**
 * A prepared-statement name for `text`: pg parses a named statement once per connection and
 * reuses the plan. Derived from the text itself, so two stores on one pool with different
 * schemas never collide (pg rejects one name bound to two texts).
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `plaita_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** The rows of `text` run as its named (prepared-once) statement on `client`. */
export async function namedRows<R extends QueryResultRow>(
  client: PoolClient,
  text: string,
  values: unknown[],
): Promise<R[]> {
  return (await client.query<R>({ name: statementName(text), text, values })).rows;
}
