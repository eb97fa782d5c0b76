import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ExecutionSummary } from '../../store/execution-store.js';
import type { ApiServices } from '../api-services.js';
import { jsonResponse, problems } from '../schemas.js';
import { ApiProblem } from '../problem.js';
import type { ServerEnv } from '../server-env.js';

const MINUTE_MS = 60_000;

/** The windows the overview offers, in ms. */
export const STATS_WINDOWS = {
  '15m': 15 * MINUTE_MS,
  '1h': 60 * MINUTE_MS,
  '6h': 6 * 60 * MINUTE_MS,
  '24h': 24 * 60 * MINUTE_MS,
} as const;

/** At most this many executions are read per answer; past it the counts are `truncated`. */
export const STATS_MAX_EXECUTIONS = 20_000;

/** Store pages are at most 1000 rows. */
const PAGE = 1000;

/** An answer is reused this long per tenant and window: consoles left open poll every 10 s. */
const CACHE_MS = 5_000;

const BucketSchema = z.object({
  at: z.string().openapi({ description: 'start of the minute (ISO 8601)' }),
  started: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
});

const ExecutionStatsSchema = z
  .object({
    window: z.enum(Object.keys(STATS_WINDOWS) as [keyof typeof STATS_WINDOWS]),
    from: z.string(),
    to: z.string(),
    bucketMs: z.literal(MINUTE_MS),
    buckets: z.array(BucketSchema).openapi({ description: 'one per minute, oldest first' }),
    counted: z.number().int().openapi({ description: 'executions read' }),
    truncated: z.boolean().openapi({
      description: `true when more than ${STATS_MAX_EXECUTIONS} executions started in the window: the counts cover the newest ones only`,
    }),
  })
  .openapi('ExecutionStats');

const QueueStatsSchema = z
  .object({
    ready: z.number().int(),
    inFlight: z.number().int(),
    delayed: z.number().int(),
    deadLetters: z.number().int(),
    oldestReadyAgeMs: z.number().nullable(),
  })
  .openapi('QueueStats');

const executionStats = createRoute({
  method: 'get',
  path: '/v1/stats/executions',
  tags: ['operations'],
  summary: 'Executions started, completed and failed per minute (the console’s overview)',
  description:
    'Counts the tenant’s executions created in the window: `started` by `createdAt`, `completed` and `failed` (status `error`) by `endedAt`. Reads at most ' +
    `${STATS_MAX_EXECUTIONS} executions (newest first); past that \`truncated\` is true.`,
  request: {
    query: z.object({
      window: z
        .enum(Object.keys(STATS_WINDOWS) as [keyof typeof STATS_WINDOWS])
        .optional()
        .openapi({ description: 'default 1h' }),
    }),
  },
  responses: { 200: jsonResponse(ExecutionStatsSchema, 'per-minute counts'), ...problems() },
});

const queueStats = createRoute({
  method: 'get',
  path: '/v1/stats/queue',
  tags: ['operations'],
  summary: 'Depth of the task queue: ready, in flight, delayed, dead (platform keys)',
  description:
    'The queue is shared by every tenant, so its depth would tell one tenant about the others: a tenant key gets 403.',
  responses: { 200: jsonResponse(QueueStatsSchema, 'the queue'), ...problems(403) },
});

/** Read-only figures for the console's overview (docs/http-api.md §5), public `/v1` like the rest. */
export function registerStatsRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  const cache = new Map<string, { at: number; answer: Promise<ExecutionStats> }>();
  app.openapi(executionStats, async (c) => {
    const window = c.req.valid('query').window ?? '1h';
    const tenantId = c.get('tenant');
    const key = `${tenantId}\u0000${window}`;
    const now = Date.now();
    for (const [k, entry] of cache) if (now - entry.at > CACHE_MS) cache.delete(k);
    let entry = cache.get(key);
    if (!entry) {
      entry = { at: now, answer: countExecutions(services, tenantId, window, now) };
      cache.set(key, entry);
      // A failed read is not kept: the next request tries again.
      entry.answer.catch(() => cache.delete(key));
    }
    return c.json(await entry.answer, 200);
  });

  app.openapi(queueStats, async (c) => {
    if (c.get('principal').keyTenant !== '*')
      throw new ApiProblem(
        'forbidden',
        'the task queue is shared by every tenant: its depth needs a platform key',
      );
    return c.json(await services.queue.stats(), 200);
  });
}

type ExecutionStats = z.infer<typeof ExecutionStatsSchema>;

async function countExecutions(
  services: ApiServices,
  tenantId: string,
  window: keyof typeof STATS_WINDOWS,
  to: number,
): Promise<ExecutionStats> {
  const from = Math.floor((to - STATS_WINDOWS[window]) / MINUTE_MS) * MINUTE_MS;
  const { items, truncated } = await recentExecutions(services, tenantId, from);
  return {
    window,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    bucketMs: MINUTE_MS,
    buckets: perMinute(items, from, to),
    counted: items.length,
    truncated,
  };
}

async function recentExecutions(
  services: ApiServices,
  tenantId: string,
  fromMs: number,
): Promise<{ items: ExecutionSummary[]; truncated: boolean }> {
  const items: ExecutionSummary[] = [];
  const createdAfter = new Date(fromMs - 1).toISOString();
  let cursor: string | null = null;
  do {
    const page = await services.store.list({ tenantId, createdAfter, limit: PAGE, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null && items.length < STATS_MAX_EXECUTIONS);
  return { items: items.slice(0, STATS_MAX_EXECUTIONS), truncated: cursor !== null };
}

/** One bucket per minute from `fromMs` to `toMs`, oldest first. */
export function perMinute(items: readonly ExecutionSummary[], fromMs: number, toMs: number) {
  const count = Math.floor((toMs - fromMs) / MINUTE_MS) + 1;
  const buckets = Array.from({ length: count }, (_, i) => ({
    at: new Date(fromMs + i * MINUTE_MS).toISOString(),
    started: 0,
    completed: 0,
    failed: 0,
  }));
  const slot = (iso: string | null) => {
    if (iso === null) return undefined;
    const index = Math.floor((Date.parse(iso) - fromMs) / MINUTE_MS);
    return index >= 0 && index < count ? buckets[index] : undefined;
  };
  for (const item of items) {
    const started = slot(item.createdAt);
    if (started) started.started++;
    const ended = slot(item.endedAt);
    if (ended && item.status === 'completed') ended.completed++;
    if (ended && item.status === 'error') ended.failed++;
  }
  return buckets;
}
