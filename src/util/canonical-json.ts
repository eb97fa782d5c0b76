import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: the same definition always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']';
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => JSON.stringify(k) + ':' + canonicalJson((value as Record<string, unknown>)[k]));
  return '{' + entries.join(',') + '}';
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
