import type { ControlKey, ControlStore } from '../store/control-store.js';
import { sha256Hex } from '../util/canonical-json.js';

/** How long a write's Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

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

/**
 * Claims a tenant's Idempotency-Key for one write (`id` names the write and holds the key):
 * the claim, or null when an earlier request holds it. `doc` is what a repeat may read back.
 */
export async function claimIdempotencyKey(
  control: ControlStore,
  tenant: string,
  id: string,
  doc: Record<string, unknown> = {},
): Promise<ControlKey | null> {
  const key: ControlKey = { collection: 'idempotency', tenant, id };
  const claimed = await control.create(
    key,
    { ...doc, at: Date.now() },
    { ttlMs: IDEMPOTENCY_TTL_MS },
  );
  return claimed ? key : null;
}

/** Gives a claim back after its write failed: a corrected repeat must not be refused. */
export async function releaseIdempotencyKey(
  control: ControlStore,
  claim: ControlKey,
): Promise<void> {
  await control.delete(claim).catch(() => undefined);
}
