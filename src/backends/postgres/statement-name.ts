import { createHash } from 'node:crypto';

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
