import { z } from '@hono/zod-openapi';
import { API_STATUSES } from './execution-status.js';
import { PROBLEM_STATUS } from './problem.js';

/** The schemas shared by several route groups; each group keeps its own beside its routes. */

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(PROBLEM_STATUS) as [keyof typeof PROBLEM_STATUS]),
    detail: z.string(),
    requestId: z.string(),
    errors: z
      .array(
        z.object({
          path: z.string(),
          message: z.string(),
          severity: z.enum(['error', 'warning']).optional(),
          code: z.string().optional(),
          nodeId: z.string().nullable().optional(),
          suggestion: z.string().optional(),
        }),
      )
      .optional(),
  })
  .openapi('Problem');

/** Any JSON value (inputs, results, documents). Special values appear tagged (docs/state-codec.md). */
export const JsonValue = z.unknown().openapi({ description: 'any JSON value' });
export const JsonObject = z.record(z.string(), z.unknown());

export const ExecutionIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'id', in: 'path' }, example: '9a37…' }),
});

export const ErrorViewSchema = z.object({
  code: z.union([z.string(), z.number(), z.null()]),
  type: z.string().nullable(),
  nodeId: z.string().nullable(),
  message: z.string(),
});

export const WaitingSchema = z.object({
  nodeId: z.string(),
  eventType: z.string(),
  dueAt: z.string().nullable(),
});

export const StatusSchema = z.enum(API_STATUSES);

export const ExecutionSummarySchema = z
  .object({
    executionId: z.string(),
    status: StatusSchema,
    flowId: z.string().nullable(),
    flowVersion: z.string().nullable(),
    flowHash: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    endedAt: z.string().nullable(),
    error: ErrorViewSchema.optional(),
    waiting: WaitingSchema.optional(),
  })
  .openapi('ExecutionSummary');

export const NodeViewSchema = z.object({
  nodeId: z.string(),
  type: z.string().nullable(),
  status: z.enum(['done', 'running', 'waiting', 'failed', 'cancelled']),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  attempts: z.number().int(),
  output: JsonValue,
});

export const ExecutionViewSchema = z
  .object({
    executionId: z.string(),
    status: StatusSchema,
    tenantId: z.string(),
    flowId: z.string().nullable(),
    flowVersion: z.string().nullable(),
    flowHash: z.string().nullable(),
    input: JsonValue,
    result: JsonValue.optional(),
    error: ErrorViewSchema.optional(),
    waiting: WaitingSchema.optional(),
    nodes: z.array(NodeViewSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
    endedAt: z.string().nullable(),
    version: z.number().int(),
    retries: z.number().int().describe('operator retries made of this execution (ours)'),
    replayOf: z.string().optional(),
    rerunOf: z.string().optional().describe('a rerun: the execution it reruns'),
    fromNode: z.string().optional().describe('a rerun: the node it ran from'),
    lease: z
      .object({ owner: z.string(), expiresAt: z.string() })
      .nullable()
      .optional()
      .describe(
        'ours, running executions only: the worker holding its lease, or null when none does (it goes on when its message is delivered again)',
      ),
  })
  .openapi('Execution');

/** `limit` (default 50, max 500) and an opaque `cursor` (docs/http-api.md §3). */
export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).max(2000).optional(),
};

/** A list response: `{items, nextCursor}`. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** The problem responses every authenticated route may give. */
export function problems(...statuses: number[]) {
  const out: Record<
    number,
    {
      description: string;
      content: { 'application/problem+json': { schema: typeof ProblemSchema } };
    }
  > = {};
  for (const status of [400, 401, 403, 429, 503, ...statuses])
    out[status] = {
      description: 'a problem (docs/http-api.md §3)',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    };
  return out;
}

export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  content: { 'application/json': { schema } },
  required,
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
