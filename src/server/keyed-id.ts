import { sha256Hex } from '../util/canonical-json.js';

/**
 * A UUID-shaped id made from a tenant's `Idempotency-Key` for one kind of record (`kind`: the
 * same key sent to two routes makes two ids): a repeated request finds the record the first
 * one made instead of making another.
 */
export function keyedId(kind: string, tenantId: string, key: string): string {
  const hex = sha256Hex(`${kind}\u0000${tenantId}\u0000${key}`);
  return [
    hex.slice(0, 8),
    hex.slice(8, 12),
    hex.slice(12, 16),
    hex.slice(16, 20),
    hex.slice(20, 32),
  ].join('-');
}
