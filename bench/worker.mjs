// Worker benchmark (issue 4), side by side in one run:
//  1. Redis tier: 5,000 executions of a 5-node flow, a fenced checkpoint after every node,
//     ONE worker process (this one), concurrency 50 — beside BullMQ doing the same work as
//     step jobs (bullmq-steps.mjs 5000 5 50). Also: checkpointed steps/s as a fraction of
//     `redis-benchmark -t set` on this machine (the physical ceiling).
//  2. PostgreSQL store + Redis queue, same workload — beside DBOS (dbos-steps.mjs 2000 5 50).
//  3. Embedded tier (SQLite store + LocalQueue): executions/s.
//  4. Memory: worker RSS over 100,000 executions (first and last sample).
//  5. Scaling: 1, 2 and 4 worker processes on one Redis.
// Beside each tier, what the server itself does on this machine in the same run (issue 11):
// redis-benchmark SET, a pgbench one-row UPDATE, SQLite's own commit rate; and our checkpoints/s
// (every fenced save the worker made) as a share of it.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseFlow } from '../dist/index.js';
import { PlaitaClient } from '../dist/client/plaita-client.js';
import { FlowWorker } from '../dist/worker/flow-worker.js';
import { RedisExecutionStore } from '../dist/store/redis/redis-execution-store.js';
import { RedisFlowStore } from '../dist/store/redis/redis-flow-store.js';
import { PostgresExecutionStore } from '../dist/store/postgres/postgres-execution-store.js';
import { PostgresFlowStore } from '../dist/store/postgres/postgres-flow-store.js';
import { SqliteExecutionStore } from '../dist/store/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../dist/store/sqlite/sqlite-flow-store.js';
import { RedisStreamQueue } from '../dist/queue/redis-stream/redis-stream-queue.js';
import { LocalQueue } from '../dist/queue/local/local-queue.js';
import { silentLogger } from '../dist/util/logger.js';
import { runAnchor, ratio } from './anchors.mjs';
import { postgresUpdateRate, redisSetRate, sqliteCommitRate } from './server-limits.mjs';
import { chainFlowDocument } from './chain-flow.mjs';
import { onCompleted } from './on-completed.mjs';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_BASE = process.env.PGURL ?? 'postgresql://postgres:postgres@127.0.0.1:5432';
const N = Number(process.env.BENCH_WORKER_EXECUTIONS ?? 5000);
const N_PG = Number(process.env.BENCH_WORKER_PG_EXECUTIONS ?? 2000);
const N_MEMORY = Number(process.env.BENCH_WORKER_MEMORY_EXECUTIONS ?? 100_000);
const N_LATENCY = Number(process.env.BENCH_WORKER_LATENCY_EXECUTIONS ?? 500);
const N_SCALING = Number(process.env.BENCH_WORKER_SCALING_EXECUTIONS ?? 4000);
const CONCURRENCY = 50;
const STEPS = 5;

const flow = parseFlow(chainFlowDocument('steps5', STEPS));

/** Starts `count` executions and runs them to completion with one worker; returns executions/s. */
async function runWorkload({ store, flows, queue, count, concurrency = CONCURRENCY, sample }) {
  let done = 0;
  let saves = 0;
  const save = store.save.bind(store);
  store.save = (state, options) => {
    saves++;
    return save(state, options);
  };
  let resolveDone;
  const allDone = new Promise((resolve) => (resolveDone = resolve));
  onCompleted(store, () => {
    if (++done === count) resolveDone();
    if (sample && done % sample.every === 0) sample.fn(done);
  });
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    concurrency,
    pollBlockMs: 200,
    logger: silentLogger,
  });
  const client = new PlaitaClient({ store, flows, queue });
  await client.start(flow, { i: -1 }); // publish the flow (and warm the connections) before timing
  done = -1;
  saves = 0;
  const t0 = performance.now();
  worker.start();
  for (let i = 0; i < count; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, k) => client.start(flow, { i: i + k })),
    );
  }
  await allDone;
  const ms = performance.now() - t0;
  await worker.stop();
  return {
    executionsPerS: Math.round(count / (ms / 1000)),
    stepsPerS: Math.round((count * STEPS) / (ms / 1000)),
    checkpointsPerS: Math.round(saves / (ms / 1000)),
    msPerExecution: +(ms / count).toFixed(2),
    totalMs: Math.round(ms),
  };
}

function redisParts(prefix) {
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

async function cleanupRedisPrefix(prefix) {
  // Bench keys only (their own prefix); never FLUSHALL. SCAN here is bench tooling, not engine code.
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

/** N_SCALING executions queued first, then `processes` worker processes started at once. */
async function runProcesses(processes) {
  const prefix = `bench-ws-${process.pid}-${processes}`;
  const parts = redisParts(prefix);
  const client = new PlaitaClient(parts);
  for (let i = 0; i < N_SCALING; i += 200)
    await Promise.all(
      Array.from({ length: Math.min(200, N_SCALING - i) }, (_, k) =>
        client.start(flow, { i: i + k }),
      ),
    );
  const script = new URL('./worker-process.mjs', import.meta.url);
  const children = await Promise.all(
    Array.from({ length: processes }, async () => {
      const child = fork(script, [], {
        env: { ...process.env, PREFIX: prefix, REDIS_URL, CONCURRENCY: String(CONCURRENCY) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      await new Promise((resolve) => child.once('message', resolve));
      return child;
    }),
  );
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(REDIS_URL);
  const t0 = performance.now();
  for (const child of children) child.send('go');
  let perS = null;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (Number(await redis.get(`${prefix}:done`)) >= N_SCALING) {
      perS = Math.round(N_SCALING / ((performance.now() - t0) / 1000));
      break;
    }
    if (performance.now() - t0 > 600_000) break;
  }
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
  redis.disconnect();
  await parts.close();
  await cleanupRedisPrefix(prefix);
  return perS;
}

const report = { bench: 'worker', executions: N, steps: STEPS, concurrency: CONCURRENCY };

// 0. Warm-up, not reported: the first tier measured would otherwise pay for compiling the
// engine, codec and worker code every tier shares (the DBOS and LangGraph anchors warm up too).
{
  const prefix = `bench-w-warm-${process.pid}`;
  const parts = redisParts(prefix);
  await runWorkload({ ...parts, count: Number(process.env.BENCH_WORKER_WARMUP ?? 2000) });
  await parts.close();
  await cleanupRedisPrefix(prefix);
}

// 1. Redis tier vs BullMQ
{
  const prefix = `bench-w-${process.pid}`;
  const parts = redisParts(prefix);
  const ours = await runWorkload({ ...parts, count: N });
  await parts.close();
  await cleanupRedisPrefix(prefix);
  const bull = runAnchor('bullmq-steps.mjs', [N, STEPS, CONCURRENCY]);
  const setPerS = redisSetRate(REDIS_URL, 50);
  report.redis = {
    ours_executions_per_s: ours.executionsPerS,
    bullmq_executions_per_s: bull.executions_per_s ?? null,
    speedup: ratio(ours.executionsPerS, bull.executions_per_s),
    ours_checkpointed_steps_per_s: ours.stepsPerS,
    ours_checkpoints_per_s: ours.checkpointsPerS,
    redis_benchmark_set_per_s: setPerS,
    fraction_of_set_ceiling: setPerS ? +(ours.stepsPerS / setPerS).toFixed(3) : null,
    ...(bull.error ? { anchorError: bull.error } : {}),
  };
  console.log(
    `Redis tier, ${N} × ${STEPS}-node executions, 1 worker, concurrency ${CONCURRENCY}: ours ${ours.executionsPerS}/s, BullMQ ${bull.executions_per_s ?? '?'}/s → ${report.redis.speedup ?? '?'}x`,
  );
  console.log(
    `  checkpointed steps/s ${ours.stepsPerS} (all fenced saves: ${ours.checkpointsPerS}/s) = ${report.redis.fraction_of_set_ceiling ?? '?'} of redis-benchmark SET on this machine (${setPerS ?? '?'}/s, 50 clients)`,
  );
}

// 1b. Concurrency 1: latency per execution, beside BullMQ at concurrency 1
{
  const prefix = `bench-w1-${process.pid}`;
  const parts = redisParts(prefix);
  const ours = await runWorkload({ ...parts, count: N_LATENCY, concurrency: 1 });
  await parts.close();
  await cleanupRedisPrefix(prefix);
  const bull = runAnchor('bullmq-steps.mjs', [N_LATENCY, STEPS, 1]);
  const bullMs = bull.executions_per_s ? +(1000 / bull.executions_per_s).toFixed(2) : null;
  report.redis_concurrency_1 = {
    ours_ms_per_execution: ours.msPerExecution,
    bullmq_ms_per_execution: bullMs,
    ...(bull.error ? { anchorError: bull.error } : {}),
  };
  console.log(
    `Redis tier, concurrency 1, ${N_LATENCY} executions: ours ${ours.msPerExecution} ms per execution, BullMQ ${bullMs ?? '?'} ms`,
  );
}

// 2. Postgres store + Redis queue vs DBOS
{
  const schema = `bench_w_${process.pid}`;
  const prefix = `bench-wpg-${process.pid}`;
  const url = `${PG_BASE}/test`;
  try {
    const store = new PostgresExecutionStore({ connectionString: url }, { schema, poolSize: 20 });
    const flows = new PostgresFlowStore({ connectionString: url }, { schema });
    const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix, stream: `${prefix}:tasks` });
    const ours = await runWorkload({ store, flows, queue, count: N_PG });
    await Promise.all([store.close(), flows.close(), queue.close()]);
    await cleanupRedisPrefix(prefix);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    const dbos = runAnchor('dbos-steps.mjs', [N_PG, STEPS, CONCURRENCY]);
    const updatesPerS = await postgresUpdateRate(url, 50);
    report.postgres = {
      ours_executions_per_s: ours.executionsPerS,
      dbos_executions_per_s: dbos.executions_per_s ?? null,
      speedup: ratio(ours.executionsPerS, dbos.executions_per_s),
      ours_checkpoints_per_s: ours.checkpointsPerS,
      pgbench_one_row_updates_per_s: updatesPerS,
      fraction_of_update_ceiling: updatesPerS
        ? +(ours.checkpointsPerS / updatesPerS).toFixed(3)
        : null,
      ...(dbos.error ? { anchorError: dbos.error } : {}),
    };
    console.log(
      `Postgres store + Redis queue, ${N_PG} executions: ours ${ours.executionsPerS}/s, DBOS ${dbos.executions_per_s ?? '?'}/s → ${report.postgres.speedup ?? '?'}x`,
    );
    console.log(
      `  checkpoints/s ${ours.checkpointsPerS} = ${report.postgres.fraction_of_update_ceiling ?? '?'} of pgbench one-row UPDATE commits on this machine (${updatesPerS ?? '?'}/s, 50 clients)`,
    );
  } catch (error) {
    report.postgres = { skipped: String(error.message ?? error) };
    console.log(`Postgres part skipped: ${report.postgres.skipped}`);
  }
}

// 3. Embedded tier: SQLite store + LocalQueue in one file
{
  const dir = mkdtempSync(join(tmpdir(), 'plaita-embedded-'));
  const path = join(dir, 'plaita.db');
  const store = new SqliteExecutionStore({ path });
  const flows = new SqliteFlowStore({ path });
  const queue = new LocalQueue({ path });
  const ours = await runWorkload({
    store,
    flows,
    queue,
    count: Math.min(N, 2000),
    concurrency: 16,
  });
  await Promise.all([store.close(), flows.close(), queue.close()]);
  rmSync(dir, { recursive: true, force: true });
  const commitsPerS = sqliteCommitRate();
  const saver = runAnchor('langgraph-steps.mjs', ['sqlite', 300, STEPS]);
  report.embedded = {
    ours_executions_per_s: ours.executionsPerS,
    executions: Math.min(N, 2000),
    langgraph_sqlitesaver_executions_per_s: saver.executions_per_s ?? null,
    speedup: ratio(ours.executionsPerS, saver.executions_per_s),
    ours_checkpoints_per_s: ours.checkpointsPerS,
    sqlite_commits_per_s: commitsPerS,
    fraction_of_commit_ceiling: commitsPerS
      ? +(ours.checkpointsPerS / commitsPerS).toFixed(3)
      : null,
    ...(saver.error ? { anchorError: saver.error } : {}),
  };
  console.log(
    `Embedded tier (SQLite + LocalQueue), ${Math.min(N, 2000)} executions, concurrency 16: ours ${ours.executionsPerS}/s, LangGraph.js SqliteSaver ${saver.executions_per_s ?? '?'}/s → ${report.embedded.speedup ?? '?'}x`,
  );
  console.log(
    `  checkpoints/s ${ours.checkpointsPerS} = ${report.embedded.fraction_of_commit_ceiling ?? '?'} of SQLite's own one-row commits on this machine (${commitsPerS ?? '?'}/s, one after another)`,
  );
}

// 4. Memory: RSS over N_MEMORY executions through the Redis tier
{
  const prefix = `bench-wm-${process.pid}`;
  const parts = redisParts(prefix);
  const samples = [];
  const gc = globalThis.gc ?? (() => {});
  const every = Math.max(1000, Math.floor(N_MEMORY / 10));
  await runWorkload({
    ...parts,
    count: N_MEMORY,
    sample: {
      every,
      fn: (done) => {
        gc();
        samples.push([done, +(process.memoryUsage().rss / 1e6).toFixed(1)]);
      },
    },
  });
  await parts.close();
  await cleanupRedisPrefix(prefix);
  const rss = samples.map(([, mb]) => mb);
  const warm = rss.slice(1);
  report.memory = {
    executions: N_MEMORY,
    rss_mb_samples: samples,
    growth_after_warmup_mb: warm.length > 1 ? +(warm.at(-1) - warm[0]).toFixed(1) : null,
  };
  console.log(
    `Memory over ${N_MEMORY} executions: RSS ${rss.join(' → ')} MB (first ${rss[0]} MB, last ${rss.at(-1)} MB; growth after warm-up ${report.memory.growth_after_warmup_mb} MB)`,
  );
}

// 5. Scaling: 1, 2 and 4 worker processes on one Redis
{
  report.scaling = {};
  for (const processes of [1, 2, 4]) {
    const perS = await runProcesses(processes);
    report.scaling[processes] = perS;
    console.log(
      `Scaling, ${N_SCALING} executions, ${processes} worker process(es) × concurrency ${CONCURRENCY}: ${perS ?? '?'} executions/s`,
    );
  }
}

console.log(JSON.stringify(report));
process.exit(0);
