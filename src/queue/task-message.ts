import { z } from 'zod';

/** The message schema version this code writes and understands (docs/durable-contract.md §4). */
export const MESSAGE_VERSION = 1;

export const MESSAGE_KINDS = ['run', 'event', 'cancel', 'retry', 'timer'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

const base = {
  v: z.literal(MESSAGE_VERSION),
  executionId: z
    .string()
    .min(1)
    .refine((id) => !id.includes(':'), 'executionId must not contain ":"'),
  tenantId: z.string().min(1),
};

/**
 * Queue messages: small, versioned, and never the state itself — the state is in the store,
 * written before the message is enqueued. Unknown extra fields are kept (forward compatible
 * within a version).
 */
export const taskMessageSchema = z.discriminatedUnion('kind', [
  /** Start, or continue from the checkpoint. */
  z.looseObject({ ...base, kind: z.literal('run') }),
  /** An event was appended to the execution's inbox; deliver it if the node waits for it. */
  z.looseObject({
    ...base,
    kind: z.literal('event'),
    eventId: z.string().min(1),
    type: z.string().min(1),
    data: z.unknown().optional(),
  }),
  z.looseObject({ ...base, kind: z.literal('cancel'), reason: z.string().optional() }),
  /**
   * Operator retry of an `error` execution. `retriesSeen`: its retries when the retry was asked
   * for; another request for the same failure is then applied once (absent: from before it).
   */
  z.looseObject({
    ...base,
    kind: z.literal('retry'),
    retriesSeen: z.number().int().nonnegative().optional(),
  }),
  /** A durable timer fired: a `delay` node is due, or an event wait timed out. */
  z.looseObject({
    ...base,
    kind: z.literal('timer'),
    nodeId: z.string().min(1),
    timerId: z.string().min(1),
  }),
]);

export type TaskMessage = z.infer<typeof taskMessageSchema>;

export type ParsedMessage = { ok: true; message: TaskMessage } | { ok: false; reason: string };

/**
 * Validates a raw payload. Anything that is not a message we understand — not JSON, unknown
 * kind, missing fields, a newer schema version — is `malformed`: the worker dead-letters it
 * and never lets it loop.
 */
export function parseTaskMessage(payload: unknown): ParsedMessage {
  let value = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload) as unknown;
    } catch {
      return { ok: false, reason: 'not JSON' };
    }
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { v?: unknown }).v === 'number' &&
    (value as { v: number }).v > MESSAGE_VERSION
  ) {
    return {
      ok: false,
      reason: `newer schema version v${(value as { v: number }).v} (this worker understands v${MESSAGE_VERSION})`,
    };
  }
  const parsed = taskMessageSchema.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    reason: issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'invalid message',
  };
}

export function encodeTaskMessage(message: TaskMessage): string {
  return JSON.stringify(message);
}
