import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { loadExecution } from '../execution-reads.js';
import { ApiProblem } from '../problem.js';
import { ExecutionIdParam, jsonResponse, problems } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';
import { STREAM_TICKET_TTL_MS, StreamTickets } from '../stream/stream-tickets.js';

const stream = createRoute({
  method: 'get',
  path: '/v1/executions/{id}/stream',
  tags: ['executions'],
  summary: 'Follow an execution as Server-Sent Events',
  description:
    'Events: `snapshot` (the whole execution view, as `GET /v1/executions/{id}`), then `update` ' +
    '(the whole view again) when it moved on (checkpoints saved between two reads of the server, ' +
    '100 ms apart while it changes, come as one update), then `end` `{executionId, status, version, reason}` once ' +
    'the execution is completed, error or cancelled; the stream then closes. Event ids are the ' +
    'state versions and increase; reconnect with `Last-Event-ID` (or `?lastEventId=`) to get an ' +
    '`update` only if the execution moved past it. On server shutdown a final `shutdown` event ' +
    'is sent. Authenticate as usual, or with `?ticket=` from `POST …/stream-tickets` (EventSource ' +
    'cannot send headers).',
  security: [{ apiKey: [] }, {}],
  request: {
    params: ExecutionIdParam,
    query: z.object({
      ticket: z.string().optional().openapi({ description: 'a single-use stream ticket' }),
      lastEventId: z.string().optional().openapi({ description: 'as the Last-Event-ID header' }),
    }),
    headers: z.object({ 'last-event-id': z.string().optional() }),
  },
  responses: {
    200: {
      content: { 'text/event-stream': { schema: z.string() } },
      description: 'the event stream',
    },
    ...problems(404),
  },
});

const StreamTicketSchema = z
  .object({
    ticket: z.string(),
    expiresAt: z.string().openapi({ description: `ISO 8601; ${STREAM_TICKET_TTL_MS / 1000} s` }),
  })
  .openapi('StreamTicket');

const issueTicket = createRoute({
  method: 'post',
  path: '/v1/executions/{id}/stream-tickets',
  tags: ['executions'],
  summary: 'A single-use ticket (valid 60 s) to open this execution’s stream with ?ticket=',
  middleware: [requireRole('viewer')] as const,
  request: { params: ExecutionIdParam },
  responses: { 201: jsonResponse(StreamTicketSchema, 'the ticket'), ...problems(404) },
});

export function registerExecutionStreamRoutes(
  app: OpenAPIHono<ServerEnv>,
  services: ApiServices,
): void {
  const tickets = new StreamTickets(services.control);

  app.openapi(stream, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    // With ?ticket= the request passed the auth middleware unauthenticated: the ticket is the
    // credential, and names the tenant. It is used up only once the stream is open.
    const holder =
      query.ticket === undefined
        ? { tenant: c.get('tenant'), keyId: c.get('principal').keyId }
        : await tickets.check(query.ticket, id);
    // The key behind the stream must still be live when it opens, and stay so while it runs.
    const allowed = async (): Promise<boolean> =>
      holder.keyId === null || (await services.keys.live(holder.keyId, { fresh: true })) !== null;
    if (query.ticket !== undefined && !(await allowed()))
      throw new ApiProblem('unauthorized', 'the key that asked for this stream ticket was revoked');
    const state = await loadExecution(services, holder.tenant, id);
    // HEAD runs this handler and drops the body: a session opened for it would never end.
    if (c.req.method === 'HEAD')
      return c.body(null, 200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
      });
    const resumeFrom = eventIdOf(c.req.valid('header')['last-event-id'] ?? query.lastEventId);
    const outgoing = (c.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing;
    const session = await services.streams.open(state, {
      drop: () => outgoing?.destroy(),
      allowed,
    });
    if (query.ticket !== undefined)
      await tickets.redeem(query.ticket, id).catch((error: unknown) => {
        session.abandon();
        throw error;
      });
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, (sse) => session.run(sse, resumeFrom, c.req.raw.signal));
  });

  app.openapi(issueTicket, async (c) => {
    const { id } = c.req.valid('param');
    const tenant = c.get('tenant');
    await loadExecution(services, tenant, id);
    return c.json(await tickets.issue(tenant, id, c.get('principal').keyId), 201);
  });
}

/** A Last-Event-ID this server gave (a state version); anything else means "from scratch". */
function eventIdOf(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}
