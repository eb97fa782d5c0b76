import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ControlPage } from '../../store/control-store.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { viewOf } from '../execution-reads.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { CronSpec } from '../../control/schedules/cron-spec.js';
import { slotsAfter, type ScheduleRecord } from '../../control/schedules/schedule-record.js';
import {
  ExecutionViewSchema,
  JsonObject,
  jsonBody,
  jsonResponse,
  PageQuery,
  pageOf,
  problems,
} from '../schemas.js';
import type { ServerEnv } from '../server-env.js';
import { Schedules } from '../../control/schedules/schedules.js';

const ScheduleSchema = z
  .object({
    id: z.string(),
    flowId: z.string(),
    version: z.string().nullable(),
    cron: z.string(),
    timezone: z.string(),
    input: JsonObject,
    enabled: z.boolean(),
    overlap: z.enum(['allow', 'skip']),
    nextRunAt: z.string().nullable(),
    lastRunAt: z.string().nullable(),
    lastExecutionId: z.string().nullable(),
    lastError: z.string().nullable(),
    skipped: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Schedule');

const Fields = {
  flowId: z.string().min(1).max(200),
  version: z.string().min(1).max(100).nullable(),
  cron: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100),
  input: JsonObject,
  enabled: z.boolean(),
  overlap: z.enum(['allow', 'skip']),
};

const IdParam = z.object({ id: z.string().min(1).max(100) });

const list = createRoute({
  method: 'get',
  path: '/v1/schedules',
  tags: ['schedules'],
  summary: 'Schedules of the tenant',
  request: { query: z.object(PageQuery) },
  responses: { 200: jsonResponse(pageOf(ScheduleSchema), 'a page'), ...problems() },
});

const create = createRoute({
  method: 'post',
  path: '/v1/schedules',
  tags: ['schedules'],
  summary: 'Create a schedule (cron of 5 or 6 fields, IANA time zone, default UTC)',
  description:
    'With an Idempotency-Key header a repeat returns the schedule the first request made, with 200.',
  middleware: [requireRole('admin')] as const,
  request: {
    headers: IdempotencyKeyHeader,
    body: jsonBody(
      z.strictObject({
        flowId: Fields.flowId,
        version: Fields.version.optional(),
        cron: Fields.cron,
        timezone: Fields.timezone.optional(),
        input: Fields.input.optional(),
        enabled: Fields.enabled.optional(),
        overlap: Fields.overlap.optional(),
      }),
    ),
  },
  responses: {
    201: jsonResponse(ScheduleSchema, 'created'),
    200: jsonResponse(ScheduleSchema, 'a repeat (same Idempotency-Key): the schedule it made'),
    ...problems(404),
  },
});

const preview = createRoute({
  method: 'get',
  path: '/v1/schedules/preview',
  tags: ['schedules'],
  summary: 'The next fire times of a cron pattern in a time zone',
  request: {
    query: z.object({
      cron: Fields.cron,
      timezone: Fields.timezone.optional(),
      count: z.coerce.number().int().min(1).max(100).optional(),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ cron: z.string(), timezone: z.string(), times: z.array(z.string()) }),
      'next times',
    ),
    ...problems(),
  },
});

const get = createRoute({
  method: 'get',
  path: '/v1/schedules/{id}',
  tags: ['schedules'],
  summary: 'One schedule',
  request: { params: IdParam },
  responses: { 200: jsonResponse(ScheduleSchema, 'the schedule'), ...problems(404) },
});

const patch = createRoute({
  method: 'patch',
  path: '/v1/schedules/{id}',
  tags: ['schedules'],
  summary: 'Change a schedule (enable/disable, cron, input, …)',
  middleware: [requireRole('admin')] as const,
  request: {
    params: IdParam,
    body: jsonBody(
      z.strictObject({
        flowId: Fields.flowId.optional(),
        version: Fields.version.optional(),
        cron: Fields.cron.optional(),
        timezone: Fields.timezone.optional(),
        input: Fields.input.optional(),
        enabled: Fields.enabled.optional(),
        overlap: Fields.overlap.optional(),
      }),
    ),
  },
  responses: { 200: jsonResponse(ScheduleSchema, 'the changed schedule'), ...problems(404, 409) },
});

const remove = createRoute({
  method: 'delete',
  path: '/v1/schedules/{id}',
  tags: ['schedules'],
  summary: 'Delete a schedule',
  middleware: [requireRole('admin')] as const,
  request: { params: IdParam },
  responses: { 204: { description: 'deleted' }, ...problems(404) },
});

const trigger = createRoute({
  method: 'post',
  path: '/v1/schedules/{id}/trigger',
  tags: ['schedules'],
  summary: 'Fire the schedule now (outside its slots)',
  middleware: [requireRole('operator')] as const,
  request: { params: IdParam },
  responses: {
    201: jsonResponse(ExecutionViewSchema, 'the execution started'),
    200: jsonResponse(ExecutionViewSchema, 'a repeat (same Idempotency-Key): the run it started'),
    ...problems(404),
  },
});

export function registerSchedulesRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const page: ControlPage<ScheduleRecord> = await services.control.list<ScheduleRecord>({
      collection: 'schedules',
      tenant: c.get('tenant'),
      limit: query.limit ?? 50,
      after: decodeCursor(query.cursor),
    });
    return c.json(
      { items: page.items.map((item) => view(item.doc)), nextCursor: encodeCursor(page.next) },
      200,
    );
  });

  app.openapi(preview, (c) => {
    const query = c.req.valid('query');
    const timezone = query.timezone ?? 'UTC';
    const spec = CronSpec.forWriting(query.cron, timezone, 'query');
    const times = spec.nextRuns(query.count ?? 5, new Date()).map((d) => d.toISOString());
    return c.json({ cron: query.cron, timezone, times }, 200);
  });

  const schedules = new Schedules(services);

  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const { record, created } = await schedules.create(
      c.get('tenant'),
      body,
      c.req.valid('header')['idempotency-key'],
    );
    if (!created) return c.json(view(record), 200);
    await services.audit.record(c, 'schedule.create', record.id);
    return c.json(view(record), 201);
  });

  app.openapi(get, async (c) => {
    const record = await schedules.get(c.get('tenant'), c.req.valid('param').id);
    return c.json(view(record.doc), 200);
  });

  app.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const changed = await schedules.update(c.get('tenant'), id, c.req.valid('json'));
    await services.audit.record(c, 'schedule.update', id);
    return c.json(view(changed), 200);
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await schedules.remove(c.get('tenant'), id);
    await services.audit.record(c, 'schedule.delete', id);
    return c.body(null, 204);
  });

  app.openapi(trigger, async (c) => {
    const { id } = c.req.valid('param');
    const { state, created } = await schedules.trigger(
      c.get('tenant'),
      id,
      c.req.header('idempotency-key'),
    );
    if (!created) return c.json(await viewOf(services, state), 200);
    await services.audit.record(c, 'schedule.trigger', `${id} -> ${state.executionId}`);
    return c.json(await viewOf(services, state), 201);
  });
}

function view(record: ScheduleRecord) {
  const { tenantId: _tenant, slotsAfter: _after, ...rest } = record;
  const spec = new CronSpec(record.cron, record.timezone);
  const next = record.enabled
    ? spec.next(new Date(Math.max(Date.now(), slotsAfter(record).getTime())))
    : null;
  return { ...rest, nextRunAt: next?.toISOString() ?? null };
}
