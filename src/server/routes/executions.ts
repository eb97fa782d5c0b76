import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { isTerminal, type ExecutionState } from '../../state/execution-state.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { API_STATUSES, storeStatus } from '../execution-status.js';
import { drainingSignal } from '../draining.js';
import { loadExecution, viewOf, waitToSettle } from '../execution-reads.js';
import { summaryView } from '../execution-view.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { ApiProblem } from '../problem.js';
import {
  ExecutionIdParam,
  ExecutionSummarySchema,
  ExecutionViewSchema,
  JsonObject,
  jsonBody,
  jsonResponse,
  PageQuery,
  pageOf,
  problems,
} from '../schemas.js';
import type { ServerEnv } from '../server-env.js';
import { EXECUTION_ID, startExecution } from '../../control/idempotent-start.js';
import { parseWait } from '../wait-param.js';

const StartBody = z
  .strictObject({
    flowId: z.string().min(1).max(200).optional(),
    version: z.string().min(1).max(100).optional(),
    flow: JsonObject.optional().openapi({ description: 'an inline flow document' }),
    input: JsonObject.optional(),
    executionId: z
      .string()
      .regex(EXECUTION_ID, 'letters, digits and . _ - (at most 128), no ":"')
      .optional(),
  })
  .openapi('StartExecution');

const start = createRoute({
  method: 'post',
  path: '/v1/executions',
  tags: ['executions'],
  summary: 'Start an execution of a published flow or an inline document',
  description:
    'Idempotent with an Idempotency-Key header or a given executionId: a repeat returns the same execution with 200. `?wait=30s` holds the answer until it settles.',
  middleware: [requireRole('operator')] as const,
  request: {
    body: jsonBody(StartBody),
    query: z.object({ wait: z.string().optional() }),
    headers: IdempotencyKeyHeader,
  },
  responses: {
    201: jsonResponse(ExecutionViewSchema, 'started'),
    200: jsonResponse(ExecutionViewSchema, 'started earlier by the same key or id'),
    ...problems(404, 409, 413, 422),
  },
});

const statusFilter = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    const list = value.split(',');
    for (const item of list)
      if (!(API_STATUSES as readonly string[]).includes(item) && item !== 'suspended') {
        ctx.addIssue({
          code: 'custom',
          message: `unknown status '${item}'; one of ${API_STATUSES.join(', ')}`,
        });
        return z.NEVER;
      }
    return list.map((item) => storeStatus(item as (typeof API_STATUSES)[number]));
  });

const isoTime = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'an ISO 8601 time');

const list = createRoute({
  method: 'get',
  path: '/v1/executions',
  tags: ['executions'],
  summary: 'Executions of the tenant, newest first (keyset pages)',
  request: {
    query: z.object({
      status: statusFilter,
      flowId: z.string().min(1).max(200).optional(),
      from: isoTime.optional(),
      to: isoTime.optional(),
      ...PageQuery,
    }),
  },
  responses: { 200: jsonResponse(pageOf(ExecutionSummarySchema), 'a page'), ...problems() },
});

const get = createRoute({
  method: 'get',
  path: '/v1/executions/{id}',
  tags: ['executions'],
  summary: 'The whole execution: status, input, result or error, waiting, the node timeline',
  description:
    '`?wait=10s` holds the answer while the execution is queued or running, until it ends or waits (at most the given time).',
  request: { params: ExecutionIdParam, query: z.object({ wait: z.string().optional() }) },
  responses: { 200: jsonResponse(ExecutionViewSchema, 'the execution'), ...problems(404) },
});

const remove = createRoute({
  method: 'delete',
  path: '/v1/executions/{id}',
  tags: ['executions'],
  summary: 'Delete a terminal execution (admin)',
  middleware: [requireRole('admin')] as const,
  request: { params: ExecutionIdParam },
  responses: { 204: { description: 'deleted' }, ...problems(404, 409) },
});

export function registerExecutionRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  /** `?wait=`: the state once it settles, the wait ends, the client leaves or the server drains. */
  const settledFor = (c: Context<ServerEnv>, state: ExecutionState, waitMs: number | null) =>
    waitMs === null
      ? state
      : waitToSettle(services, state, waitMs, 0, [c.req.raw.signal, drainingSignal(services)]);

  app.openapi(start, async (c) => {
    const tenant = c.get('tenant');
    const waitMs = parseWait(c.req.valid('query').wait);
    const { state, created } = await startExecution(
      services,
      tenant,
      c.req.valid('json'),
      c.req.valid('header')['idempotency-key'],
    );
    if (created) await services.audit.record(c, 'execution.start', state.executionId);
    const settled = await settledFor(c, state, waitMs);
    c.header('Location', `/v1/executions/${encodeURIComponent(state.executionId)}`);
    return c.json(await viewOf(services, settled), created ? 201 : 200);
  });

  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const page = await services.store.list({
      tenantId: c.get('tenant'),
      ...(query.status ? { status: query.status } : {}),
      ...(query.flowId ? { flowId: query.flowId } : {}),
      ...(query.from ? { createdAfter: new Date(query.from).toISOString() } : {}),
      ...(query.to ? { createdBefore: new Date(query.to).toISOString() } : {}),
      limit: query.limit ?? 50,
      // A cursor the store did not make is its InvalidCursorError: a 400 (to-problem.ts).
      cursor: query.cursor ?? null,
    });
    return c.json({ items: page.items.map(summaryView), nextCursor: page.nextCursor }, 200);
  });

  app.openapi(get, async (c) => {
    const waitMs = parseWait(c.req.valid('query').wait);
    const state = await loadExecution(services, c.get('tenant'), c.req.valid('param').id);
    const settled = await settledFor(c, state, waitMs);
    return c.json(await viewOf(services, settled), 200);
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const state = await loadExecution(services, tenantId, id);
    if (!isTerminal(state.status))
      throw new ApiProblem(
        'conflict',
        `execution ${id} is ${state.status}: only a finished execution can be deleted`,
      );
    await services.store.delete(id, { tenantId });
    await services.control.delete({ collection: 'execution_meta', tenant: tenantId, id });
    await services.audit.record(c, 'execution.delete', id);
    return c.body(null, 204);
  });
}
