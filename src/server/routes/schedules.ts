import { randomUUID } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { type ControlPage, updateRecord } from '../../store/control-store.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { viewOf } from '../execution-reads.js';
import { keyedId } from '../../control/idempotency.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { ApiProblem } from '../problem.js';
import { CronSpec } from '../../control/schedules/cron-spec.js';
import {
  scheduleIndexKey,
  scheduleKey,
  slotsAfter,
  type ScheduleRecord,
} from '../../control/schedules/schedule-record.js';
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
import { startExecution } from '../../control/idempotent-start.js';

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

  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const tenantId = c.get('tenant');
    const timezone = body.timezone ?? 'UTC';
    CronSpec.forWriting(body.cron, timezone);
    await requirePublished(services, tenantId, body.flowId, body.version ?? null);
    const now = new Date().toISOString();
    // With an Idempotency-Key the schedule's id follows from it: a repeat finds the first (two
    // schedules of one intent would each fire every slot).
    const key = c.req.valid('header')['idempotency-key'];
    const record: ScheduleRecord = {
      id: key === undefined ? randomUUID() : keyedId('schedule', tenantId, key),
      tenantId,
      flowId: body.flowId,
      version: body.version ?? null,
      cron: body.cron,
      timezone,
      input: body.input ?? {},
      enabled: body.enabled ?? true,
      overlap: body.overlap ?? 'allow',
      lastRunAt: null,
      lastExecutionId: null,
      slotsAfter: now,
      lastError: null,
      skipped: 0,
      createdAt: now,
      updatedAt: now,
    };
    // The index first: a schedule the scheduler cannot find would be listed but never fire
    // (a failure between the two writes); an index entry without its record is passed over.
    await services.control.put(scheduleIndexKey(tenantId, record.id), { at: now });
    if (!(await services.control.create(scheduleKey(tenantId, record.id), record))) {
      const { doc } = await load(services, tenantId, record.id);
      return c.json(view(doc), 200);
    }
    await services.audit.record(c, 'schedule.create', record.id);
    return c.json(view(record), 201);
  });

  app.openapi(get, async (c) => {
    const record = await load(services, c.get('tenant'), c.req.valid('param').id);
    return c.json(view(record.doc), 200);
  });

  app.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const body = c.req.valid('json');
    for (;;) {
      const record = await load(services, tenantId, id);
      const changed: ScheduleRecord = { ...record.doc, updatedAt: new Date().toISOString() };
      if (body.flowId !== undefined) changed.flowId = body.flowId;
      if (body.version !== undefined) changed.version = body.version;
      if (body.cron !== undefined) changed.cron = body.cron;
      if (body.timezone !== undefined) changed.timezone = body.timezone;
      if (body.input !== undefined) changed.input = body.input;
      if (body.enabled !== undefined) changed.enabled = body.enabled;
      if (body.overlap !== undefined) changed.overlap = body.overlap;
      // A pattern that never fires is refused when it is set, not when another field changes.
      if (body.cron !== undefined || body.timezone !== undefined)
        CronSpec.forWriting(changed.cron, changed.timezone);
      else new CronSpec(changed.cron, changed.timezone);
      if (body.flowId !== undefined || body.version !== undefined)
        await requirePublished(services, tenantId, changed.flowId, changed.version);
      // Re-enabled or re-timed: slots from before the change are not owed. The same values sent
      // again (the console's form sends every field) change nothing: a due slot stays owed.
      const was = record.doc;
      if (
        (changed.enabled && !was.enabled) ||
        changed.cron !== was.cron ||
        changed.timezone !== was.timezone
      )
        changed.slotsAfter = changed.updatedAt;
      if (await services.control.replace(scheduleKey(tenantId, id), changed, record.version)) {
        await services.audit.record(c, 'schedule.update', id);
        return c.json(view(changed), 200);
      }
    }
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    await load(services, tenantId, id);
    await services.control.delete(scheduleKey(tenantId, id));
    await services.control.delete(scheduleIndexKey(tenantId, id));
    await services.audit.record(c, 'schedule.delete', id);
    return c.body(null, 204);
  });

  app.openapi(trigger, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const { doc } = await load(services, tenantId, id);
    // An Idempotency-Key makes a retried trigger the same run (200 with it, as a repeated start).
    const key = c.req.header('idempotency-key');
    const { state, created } = await startExecution(
      services,
      tenantId,
      {
        flowId: doc.flowId,
        ...(doc.version === null ? {} : { version: doc.version }),
        input: doc.input,
      },
      `schedule:${id}:manual:${key ?? randomUUID()}`,
    );
    if (!created) return c.json(await viewOf(services, state), 200);
    await recordRun(services, tenantId, id, state.executionId);
    await services.audit.record(c, 'schedule.trigger', `${id} -> ${state.executionId}`);
    return c.json(await viewOf(services, state), 201);
  });
}

/**
 * A manual run is the schedule's last run too: `overlap: skip` waits for it like for a slot's.
 * Slots are not moved. A schedule deleted meanwhile keeps its run and no record.
 */
async function recordRun(
  services: ApiServices,
  tenantId: string,
  id: string,
  executionId: string,
): Promise<void> {
  const now = new Date().toISOString();
  // Bounded: the run is started either way, and the next slot's check reads the execution.
  await updateRecord(
    services.control,
    scheduleKey(tenantId, id),
    (doc: ScheduleRecord) => ({
      ...doc,
      // Written out before lastRunAt moves: records from before slotsAfter read it from there.
      slotsAfter: slotsAfter(doc).toISOString(),
      lastRunAt: now,
      lastExecutionId: executionId,
      updatedAt: now,
    }),
    { attempts: 5 },
  );
}

async function load(services: ApiServices, tenantId: string, id: string) {
  const record = await services.control.get<ScheduleRecord>(scheduleKey(tenantId, id));
  if (!record) throw new ApiProblem('not_found', `no schedule ${id}`);
  return record;
}

async function requirePublished(
  services: ApiServices,
  tenantId: string,
  flowId: string,
  version: string | null,
) {
  if (!(await services.flows.getByVersion(flowId, version, { tenantId })))
    throw new ApiProblem(
      'not_found',
      `flow '${flowId}'${version ? ` version ${version}` : ''} is not published`,
      {
        errors: [{ path: version ? 'body.version' : 'body.flowId', message: 'not published' }],
      },
    );
}

function view(record: ScheduleRecord) {
  const { tenantId: _tenant, slotsAfter: _after, ...rest } = record;
  const spec = new CronSpec(record.cron, record.timezone);
  const next = record.enabled
    ? spec.next(new Date(Math.max(Date.now(), slotsAfter(record).getTime())))
    : null;
  return { ...rest, nextRunAt: next?.toISOString() ?? null };
}
