import { z } from '@hono/zod-openapi';

/** The `Idempotency-Key` header every write that takes one accepts. */
export const IdempotencyKeyHeader = z.object({
  'idempotency-key': z.string().min(1).max(255).optional(),
});
