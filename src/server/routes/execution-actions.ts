import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { DEFAULT_LIMITS } from '../../flow/runtime-limits.js';

import { checkDepth } from '../../util/value-depth.js';
import type { ApiServices } from '../api-services.js';
import { APPROVAL_EVENT_TYPE } from '../../control/approvals/approval-event.js';
import { refuseDecisionBypass } from '../../control/approvals/pending-approval.js';
import { requireRole } from '../auth/authenticate.js';
import { loadExecution } from '../execution-reads.js';
import { claimIdempotencyKey, releaseIdempotencyKey } from '../../control/idempotency.js';
import { startOnce } from '../start-once.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { replayExecution } from '../../control/replay-execution.js';
import {
  ExecutionIdParam,
  ExecutionViewSchema,
  JsonObject,
  JsonValue,
  jsonBody,
  jsonResponse,
  problems,
} from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

const Accepted = z.object({ executionId: z.string(), accepted: z.literal(true) });

const event = createRoute({
  method: 'post',
  path: '/v1/executions/{id}/events',
  tags: ['executions'],
  summary: 'Deliver an event to an execution (kept in its inbox until a node waits for it)',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ExecutionIdParam,
    body: jsonBody(
      z.strictObject({
        type: z.string().min(1).max(200),
        data: JsonValue.optional(),
        eventId: z.string().min(1).max(200).optional(),
      }),
    ),
  },
  responses: {
    202: jsonResponse(z.object({ executionId: z.string(), eventId: z.string() }), 'accepted'),
    ...problems(404, 409, 413),
  },
});

const cancel = createRoute({
  method: 'post',
  path: '/v1/executions/{id}/cancel',
  tags: ['executions'],
  summary: 'Cancel a queued, running or waiting execution',
  middleware: [requireRole('operator')] as const,
  request: { params: ExecutionIdParam },
  responses: { 202: jsonResponse(Accepted, 'cancellation requested'), ...problems(404, 409) },
});

const retry = createRoute({
  method: 'post',
  path: '/v1/executions/{id}/retry',
  tags: ['executions'],
  summary: 'Retry a failed execution from the node that failed',
  description:
    'With an Idempotency-Key header a repeat is answered 202 again and asks for nothing more.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ExecutionIdParam,
    headers: IdempotencyKeyHeader,
  },
  responses: { 202: jsonResponse(Accepted, 'retry enqueued'), ...problems(404, 409) },
});

const replay = createRoute({
  method: 'post',
  path: '/v1/executions/{id}/replay',
  tags: ['executions'],
  summary: 'Start a new execution of the same pinned version, with the same or an edited input',
  description:
    'With an Idempotency-Key header a repeat returns the replay the first request started, with 200.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ExecutionIdParam,
    headers: IdempotencyKeyHeader,
    body: jsonBody(z.strictObject({ input: JsonObject.optional() }), false),
  },
  responses: {
    201: jsonResponse(ExecutionViewSchema, 'the new execution'),
    200: jsonResponse(
      ExecutionViewSchema,
      'a repeat (same Idempotency-Key): the replay it started',
    ),
    ...problems(404, 413, 422),
  },
});

export function registerExecutionActionRoutes(
  app: OpenAPIHono<ServerEnv>,
  services: ApiServices,
): void {
  app.openapi(event, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const body = c.req.valid('json');
    const state = await loadExecution(services, tenantId, id);
    if (body.type === APPROVAL_EVENT_TYPE) await refuseDecisionBypass(services, state);
    const eventId = await services.client.sendEvent(
      id,
      {
        type: body.type,
        data: body.data ?? null,
        ...(body.eventId ? { eventId: body.eventId } : {}),
      },
      { tenantId },
    );
    // The audit log names the event, never its data.
    await services.audit.record(c, 'execution.event', `${id} ${body.type}`);
    return c.json({ executionId: id, eventId }, 202);
  });

  app.openapi(cancel, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    await loadExecution(services, tenantId, id);
    if (await services.client.cancel(id, { tenantId, reason: 'cancelled through the API' }))
      await services.audit.record(c, 'execution.cancel', id);
    return c.json({ executionId: id, accepted: true as const }, 202);
  });

  app.openapi(retry, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    await loadExecution(services, tenantId, id);
    const accepted = c.json({ executionId: id, accepted: true as const }, 202);
    // With an Idempotency-Key a repeat (a lost answer, a double click) is answered as the first
    // and asks for nothing more: without one it could re-run a node that failed again meanwhile.
    const key = c.req.valid('header')['idempotency-key'];
    const claim =
      key === undefined
        ? undefined
        : await claimIdempotencyKey(services.control, tenantId, `retry:${id}:${key}`);
    if (claim === null) return accepted;
    try {
      await services.client.retry(id, { tenantId });
    } catch (error) {
      if (claim !== undefined) await releaseIdempotencyKey(services.control, claim);
      throw error;
    }
    await services.audit.record(c, 'execution.retry', id);
    return accepted;
  });

  app.openapi(replay, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const original = await loadExecution(services, tenantId, id);
    const body = c.req.valid('json');
    if (body.input !== undefined) checkDepth(body.input, DEFAULT_LIMITS.maxDepth, 'body.input');
    const started = await startOnce(
      services,
      { tenantId, action: 'replay', originalId: id, key: c.req.valid('header')['idempotency-key'] },
      (given) => replayExecution(services, original, body.input, given),
      (made) => services.audit.record(c, 'execution.replay', `${id} -> ${made}`),
    );
    c.header('Location', `/v1/executions/${encodeURIComponent(started.executionId)}`);
    return started.repeat ? c.json(started.view, 200) : c.json(started.view, 201);
  });
}
