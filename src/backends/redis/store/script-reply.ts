import { RedisCommandError } from '../../../errors/store-errors.js';

/**
 * Script replies are `{'TAG', ...values}` arrays (see each `.lua` header). These helpers read
 * them defensively: a reply of another shape means the script and this code disagree, which
 * no retry fixes (RedisCommandError).
 */
export interface TaggedReply {
  tag: string;
  values: unknown[];
}

export function tagged(reply: unknown, script: string): TaggedReply {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw unexpected(reply, script);
  return { tag: reply[0], values: reply.slice(1) as unknown[] };
}

export function integerAt(values: readonly unknown[], index: number, script: string): number {
  const value = values[index];
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw unexpected(values, script);
  return n;
}

export function stringAt(values: readonly unknown[], index: number, script: string): string {
  const value = values[index];
  if (typeof value !== 'string') throw unexpected(values, script);
  return value;
}

/** `[k1, v1, k2, v2, ...]` → pairs. */
export function flatPairs(flat: unknown, script: string): [string, string][] {
  if (!Array.isArray(flat) || flat.length % 2 !== 0) throw unexpected(flat, script);
  const pairs: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const key: unknown = flat[i];
    const value: unknown = flat[i + 1];
    if (typeof key !== 'string' || (typeof value !== 'string' && typeof value !== 'number'))
      throw unexpected(flat, script);
    pairs.push([key, String(value)]);
  }
  return pairs;
}

export function unexpected(reply: unknown, script: string): RedisCommandError {
  const shown = JSON.stringify(reply)?.slice(0, 200) ?? String(reply);
  return new RedisCommandError(`unexpected reply from ${script}.lua: ${shown}`);
}
