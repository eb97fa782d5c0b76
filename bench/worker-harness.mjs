// What bench/worker.mjs's tiers share: a silent logger, the Redis parts under a key prefix and
// their cleanup, and runWorkload (start `count` executions, run them with one FlowWorker, time
// it). Public entry points only: the internal layout of dist/ moves. Finished executions and
// checkpoints are counted through the worker's own Prometheus metrics (WorkerMetrics), not by
// wrapping store methods, so the count holds whichever store call a save goes through.
import Redis from 'ioredis';
import { PlaitaClient } from '../dist/index.js';
import { RedisExecutionStore, RedisFlowStore, RedisStreamQueue } from '../dist/redis.js';
import { FlowWorker, WorkerMetrics } from '../dist/worker.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PG_BASE = process.env.PGURL ?? 'postgresql://postgres:postgres@127.0.0.1:5432';

/** The Logger shape the package takes (src/util/logger.ts), doing nothing. */
export const silentLogger = {
  isLevelEnabled: () => false,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

export function redisParts(prefix) {
  const store = new RedisExecutionStore({ url: REDIS_URL }, { prefix });
  const flows = new RedisFlowStore({ url: REDIS_URL }, { prefix });
  const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix, stream: `${prefix}:tasks` });
  return {
    store,
    flows,
    queue,
    close: () => Promise.all([store.close(), flows.close(), queue.close()]),
  };
}

/**
 * Deletes the bench's own keys, never FLUSHALL: those under its prefix, and a queue's whose
 * stream name starts with it (`{<stream>}…`, the CLI's queue has no key prefix). SCAN is bench
 * tooling here, not engine code.
 */
export async function cleanupRedisPrefix(prefix) {
  const redis = new Redis(REDIS_URL);
  for (const pattern of [`${prefix}*`, `{${prefix}*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  redis.disconnect();
}

/**
 * Metrics whose terminal-execution counter also calls `onTerminal(status)`: the worker counts
 * an execution once its lease is given back (src/worker/message-handler.ts).
 */
export function countingMetrics(onTerminal) {
  const metrics = new WorkerMetrics();
  const counter = metrics.executions;
  const inc = counter.inc.bind(counter);
  counter.inc = (labels, value) => {
    inc(labels, value);
    if (labels && typeof labels === 'object' && typeof labels.status === 'string')
      onTerminal(labels.status);
  };
  return metrics;
}

/** Fenced checkpoint saves the worker made so far (its checkpoint-duration histogram's count). */
export async function checkpointCount(metrics) {
  const { values } = await metrics.checkpointSeconds.get();
  return values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
}

/**
 * Starts `count` executions of `flow` (200 at a time) while one worker runs them; the clock runs
 * from the worker's start to the last execution's end (enqueue included, as the peers time it).
 */
export async function runWorkload({
  store,
  flows,
  queue,
  flow,
  registry,
  steps,
  count,
  concurrency = 50,
  sample,
}) {
  let done = 0;
  let failed = 0;
  let resolveDone;
  const allDone = new Promise((resolve) => (resolveDone = resolve));
  const metrics = countingMetrics((status) => {
    if (status !== 'completed') failed++;
    if (++done === count) resolveDone();
    if (sample && done > 0 && done % sample.every === 0) sample.fn(done);
  });
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    registry,
    concurrency,
    pollBlockMs: 200,
    logger: silentLogger,
    metrics,
  });
  const client = new PlaitaClient({ store, flows, queue, registry });
  await client.start(flow, { i: -1 }); // publish the flow (and warm the connections) before timing
  done = -1; // that execution is run (and counted) by the worker too
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  worker.start();
  for (let i = 0; i < count; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, k) => client.start(flow, { i: i + k })),
    );
  }
  await allDone;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const saves = await checkpointCount(metrics);
  await worker.stop();
  if (failed) console.log(`  WARNING: ${failed} of ${count} executions did not complete`);
  return {
    executionsPerS: Math.round(count / (ms / 1000)),
    stepsPerS: Math.round((count * steps) / (ms / 1000)),
    checkpointsPerS: Math.round(saves / (ms / 1000)),
    checkpointsPerExecution: +(saves / (count + 1)).toFixed(2),
    msPerExecution: +(ms / count).toFixed(2),
    cpuUsPerExecution: Math.round((cpu.user + cpu.system) / count),
    totalMs: Math.round(ms),
    failed,
  };
}

/** Starts `count` executions without a worker (the scaling runs queue them all first). */
export async function startAll(client, flow, count) {
  for (let i = 0; i < count; i += 200)
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, k) => client.start(flow, { i: i + k })),
    );
}
