import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { hopelessReplay } from '../../client/hopeless-replay.js';
import type { DeadLetter } from '../../queue/task-queue.js';
import { type ControlPage, PLATFORM_TENANT } from '../../store/control-store.js';
import type { WorkerBeat } from '../../worker/worker-heartbeat.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { createBulkOperation, getBulkOperation } from '../../control/bulk/bulk-operations.js';
import { API_STATUSES, storeStatus } from '../execution-status.js';
import { pageOfList } from '../cursor.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { ApiProblem } from '../problem.js';
import { EXECUTION_ID } from '../../control/idempotent-start.js';
import { jsonBody, jsonResponse, PageQuery, pageOf, problems } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

const DeadLetterSchema = z
  .object({
    id: z.string(),
    reason: z.string(),
    lastError: z.string().nullable(),
    deliveryCount: z.number().int(),
    executionId: z.string().nullable(),
    tenantId: z.string().nullable(),
    kind: z.string().nullable(),
    payload: z.string(),
    at: z.string(),
  })
  .openapi('DeadLetter');

const BulkSchema = z
  .object({
    id: z.string(),
    action: z.enum(['cancel', 'retry', 'replay']),
    status: z.enum(['pending', 'running', 'completed']),
    matched: z.number().int(),
    done: z.number().int(),
    failed: z.number().int(),
    failures: z.array(z.object({ executionId: z.string(), reason: z.string() })),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .openapi('BulkOperation');

const PLATFORM_ONLY = 'null unless the key is a platform key (tenant `*`)';

/**
 * Workers are shared by every tenant: where one runs and how busy it is tells a tenant about
 * the platform and the other tenants' load, so those fields are null for a tenant's key (null,
 * not absent: every row keeps one shape).
 */
const WorkerSchema = z
  .object({
    id: z.string(),
    host: z.string().nullable().openapi({ description: PLATFORM_ONLY }),
    pid: z.number().int().nullable().openapi({ description: PLATFORM_ONLY }),
    version: z.string(),
    concurrency: z.number().int(),
    inFlight: z.number().int().nullable().openapi({ description: PLATFORM_ONLY }),
    startedAt: z.string(),
    lastSeenAt: z.string(),
  })
  .openapi('Worker');

type WorkerView = z.infer<typeof WorkerSchema>;

/** A worker's beat as this caller may see it (docs/http-api.md §4 `GET /v1/workers`). */
function workerView(beat: WorkerBeat, platform: boolean): WorkerView {
  const { id, host, pid, version, concurrency, inFlight, startedAt, lastSeenAt } = beat;
  return platform
    ? { id, host, pid, version, concurrency, inFlight, startedAt, lastSeenAt }
    : { id, host: null, pid: null, version, concurrency, inFlight: null, startedAt, lastSeenAt };
}

const isoTime = z.string().refine((text) => !Number.isNaN(Date.parse(text)), 'an ISO 8601 time');

const listDead = createRoute({
  method: 'get',
  path: '/v1/dead-letters',
  tags: ['operations'],
  summary: 'Messages that could not be handled, newest first',
  request: { query: z.object(PageQuery) },
  responses: { 200: jsonResponse(pageOf(DeadLetterSchema), 'a page'), ...problems() },
});

const replayDead = createRoute({
  method: 'post',
  path: '/v1/dead-letters/{id}/replay',
  tags: ['operations'],
  summary: 'Put a dead letter back on the queue (after a fix)',
  middleware: [requireRole('operator')] as const,
  request: { params: z.object({ id: z.string().min(1).max(200) }) },
  responses: {
    202: jsonResponse(z.object({ id: z.string(), replayed: z.literal(true) }), 'replayed'),
    ...problems(404, 409),
  },
});

const purgeDead = createRoute({
  method: 'delete',
  path: '/v1/dead-letters',
  tags: ['operations'],
  summary: 'Remove every dead letter (platform admin)',
  middleware: [requireRole('admin')] as const,
  responses: { 200: jsonResponse(z.object({ purged: z.number().int() }), 'purged'), ...problems() },
});

const bulkStatus = z.enum([...API_STATUSES, 'suspended']);

const createBulk = createRoute({
  method: 'post',
  path: '/v1/bulk-operations',
  tags: ['operations'],
  summary: 'Cancel, retry or replay many executions, by filter or by ids; runs in batches',
  description:
    'With an Idempotency-Key header a repeat answers the operation the first request made.',
  middleware: [requireRole('operator')] as const,
  request: {
    headers: IdempotencyKeyHeader,
    body: jsonBody(
      z.strictObject({
        action: z.enum(['cancel', 'retry', 'replay']),
        filter: z.union([
          z.strictObject({ ids: z.array(z.string().regex(EXECUTION_ID)).min(1).max(10_000) }),
          z.strictObject({
            // As the executions list takes it (`"waiting"`, `"error,cancelled"`) or as a list.
            status: z
              .union([
                z.array(bulkStatus).min(1),
                z
                  .string()
                  .transform((text) => text.split(','))
                  .pipe(z.array(bulkStatus).min(1)),
              ])
              .optional(),
            flowId: z.string().min(1).max(200).optional(),
            from: isoTime.optional(),
            to: isoTime.optional(),
          }),
        ]),
      }),
    ),
  },
  responses: { 202: jsonResponse(z.object({ id: z.string() }), 'accepted'), ...problems() },
});

const getBulk = createRoute({
  method: 'get',
  path: '/v1/bulk-operations/{id}',
  tags: ['operations'],
  summary: 'Progress of a bulk operation',
  request: { params: z.object({ id: z.string().min(1).max(100) }) },
  responses: { 200: jsonResponse(BulkSchema, 'the operation'), ...problems(404) },
});

const workers = createRoute({
  method: 'get',
  path: '/v1/workers',
  tags: ['operations'],
  summary: 'Live workers, from their heartbeats',
  request: { query: z.object(PageQuery) },
  responses: {
    200: jsonResponse(pageOf(WorkerSchema), 'live workers'),
    ...problems(),
  },
});

/**
 * A dead letter belongs to the tenant its message names. A platform key sees every one, unless
 * it acts for one tenant (X-Plaita-Tenant): then it sees that tenant's, as a key of it would.
 */
function describeDead(letter: DeadLetter) {
  let tenantId: string | null = null;
  let kind: string | null = null;
  try {
    const message = JSON.parse(letter.payload) as { tenantId?: unknown; kind?: unknown };
    if (typeof message.tenantId === 'string') tenantId = message.tenantId;
    if (typeof message.kind === 'string') kind = message.kind;
  } catch {
    // A malformed message names nobody: only platform keys see it.
  }
  return { ...letter, tenantId, kind };
}

export function registerOperationsRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  const seesEveryTenant = (c: Context<ServerEnv>): boolean =>
    c.get('principal').keyTenant === '*' && !c.req.header('x-plaita-tenant');
  const visible = (c: Context<ServerEnv>, tenantId: string | null): boolean =>
    seesEveryTenant(c) || tenantId === c.get('tenant');

  app.openapi(listDead, async (c) => {
    const query = c.req.valid('query');
    const limit = query.limit ?? 50;
    const items: ReturnType<typeof describeDead>[] = [];
    let cursor = query.cursor ?? null;
    // Filtering by tenant may thin a page: read on (bounded) until it is full or the list ends.
    // A page that fills partway through a read ends at the last letter taken (the cursor is
    // the id after which the next page starts), so the rest of that read comes next time.
    for (let reads = 0; reads < 5 && items.length < limit; reads++) {
      const page = await services.queue.listDeadLetters({ limit, cursor });
      let taken = 0;
      for (const letter of page.items) {
        taken++;
        const described = describeDead(letter);
        if (!visible(c, described.tenantId)) continue;
        items.push(described);
        if (items.length === limit) break;
      }
      cursor = taken < page.items.length ? page.items[taken - 1]!.id : page.nextCursor;
      if (cursor === null) break;
    }
    return c.json({ items, nextCursor: cursor }, 200);
  });

  app.openapi(replayDead, async (c) => {
    const { id } = c.req.valid('param');
    const letter = await services.queue.findDeadLetter(id);
    if (letter === null || !visible(c, describeDead(letter).tenantId))
      throw new ApiProblem('not_found', `no dead letter ${id}`);
    const hopeless = await hopelessReplay(letter, services.store);
    if (hopeless !== null) throw new ApiProblem('conflict', hopeless);
    if (!(await services.queue.replayDeadLetter(id)))
      throw new ApiProblem('not_found', `no dead letter ${id}`);
    await services.audit.record(c, 'dead_letter.replay', id);
    return c.json({ id, replayed: true as const }, 202);
  });

  app.openapi(purgeDead, async (c) => {
    if (c.get('principal').keyTenant !== '*')
      throw new ApiProblem(
        'forbidden',
        'the dead-letter queue is shared by every tenant: purging it needs a platform admin key',
      );
    const purged = await services.queue.purgeDeadLetters();
    await services.audit.record(c, 'dead_letter.purge', String(purged));
    return c.json({ purged }, 200);
  });

  app.openapi(createBulk, async (c) => {
    const body = c.req.valid('json');
    const filter =
      'ids' in body.filter
        ? { ids: body.filter.ids }
        : {
            ...(body.filter.status
              ? { status: body.filter.status.map((s) => storeStatus(s)) }
              : {}),
            ...(body.filter.flowId ? { flowId: body.filter.flowId } : {}),
            ...(body.filter.from ? { from: new Date(body.filter.from).toISOString() } : {}),
            ...(body.filter.to ? { to: new Date(body.filter.to).toISOString() } : {}),
          };
    const { id, created } = await createBulkOperation(
      services.control,
      c.get('tenant'),
      { action: body.action, filter },
      c.req.valid('header')['idempotency-key'],
    );
    if (created) await services.audit.record(c, `bulk.${body.action}`, id);
    return c.json({ id }, 202);
  });

  app.openapi(getBulk, async (c) => {
    const { id } = c.req.valid('param');
    const {
      tenantId: _t,
      filter: _f,
      cursor: _c,
      offset: _o,
      handled: _h,
      lease: _l,
      inFlight: _i,
      ...view
    } = await getBulkOperation(services.control, c.get('tenant'), id);
    return c.json(view, 200);
  });

  app.openapi(workers, async (c) => {
    const items: WorkerBeat[] = [];
    let after: string | null = null;
    for (;;) {
      const page: ControlPage<WorkerBeat> = await services.control.list<WorkerBeat>({
        collection: 'workers',
        tenant: PLATFORM_TENANT,
        limit: 1000,
        after,
      });
      items.push(...page.items.map((item) => item.doc));
      if (page.next === null) break;
      after = page.next;
    }
    const query = c.req.valid('query');
    const platform = c.get('principal').keyTenant === PLATFORM_TENANT;
    return c.json(
      pageOfList(
        items
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((beat) => workerView(beat, platform)),
        (worker) => worker.id,
        query.limit ?? 50,
        query.cursor,
        true,
      ),
      200,
    );
  });
}
