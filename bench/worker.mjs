// npm run bench:worker — the durable runtime beside its peers, each pair in the same run (issue
// 31), ending with ONE markdown table: ours, the peer, the ratio, the target, pass/fail.
//   redis       Redis, 5 effectful steps (bench_step, a custom type), 1 worker, c=50, beside
//               BullMQ's step job (`bullmq-steps.mjs N 5 50 checkpoint`) and the floor
//               (`floor-redis.mjs N 6 50`: unbatched, autopipe, batched); checkpointed saves/s as
//               a share of `redis-benchmark -t set -c 50`
//   replayable  Redis, 5 assignment steps, c=50, beside BullMQ computing them in one job (`none`)
//   latency     Redis, 5 effectful steps, c=1: ms per execution beside BullMQ at c=1
//   postgres    PostgreSQL store + Redis queue, 5 effectful steps, c=50, beside DBOS
//   sqlite      SQLite + local queue, 5 effectful steps, beside LangGraph.js SqliteSaver
//   api         `plaita serve` (Redis queue, workers in another process): bench/api.mjs
//   memory      worker RSS over 100,000 executions
//   scaling     1 / 2 / 4 worker processes on one Redis
//   engine      in-process engine, 100-node chain, beside LangGraph.js: bench/engine.mjs
// BENCH_WORKER_SECTIONS=redis,api,… runs some of them; BENCH_QUICK=1 is a smoke run (small N).
// Sizes: docs/performance.md "How to run the benchmarks".
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseFlow } from '../dist/index.js';
import { runAnchor, runAnchorLines } from './anchors.mjs';
import { benchRegistry, chainFlowDocument, effectfulChainDocument } from './chain-flow.mjs';
import { cleanupRedisPrefix, REDIS_URL, redisParts, runWorkload } from './worker-harness.mjs';
import { buildSummary } from './worker-rows.mjs';
import { runProcesses } from './worker-scaling.mjs';
import { postgresTier, sqliteTier } from './worker-sql-tiers.mjs';
import { redisSetRate } from './server-limits.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const knob = (name, full, quick) => Number(process.env[name] ?? (QUICK ? quick : full));
const N = knob('BENCH_WORKER_EXECUTIONS', 5000, 200);
const N_LATENCY = knob('BENCH_WORKER_LATENCY_EXECUTIONS', 500, 50);
const N_PG = knob('BENCH_WORKER_PG_EXECUTIONS', 2000, 100);
const N_SQLITE = knob('BENCH_WORKER_SQLITE_EXECUTIONS', 2000, 100);
const N_LANGGRAPH = knob('BENCH_WORKER_LANGGRAPH_RUNS', 300, 20);
const N_MEMORY = knob('BENCH_WORKER_MEMORY_EXECUTIONS', 100_000, 2000);
const N_SCALING = knob('BENCH_WORKER_SCALING_EXECUTIONS', 4000, 200);
const N_WARMUP = knob('BENCH_WORKER_WARMUP', 2000, 100);
const CONCURRENCY = 50;
const STEPS = 5;
const SECTIONS = new Set(
  (
    process.env.BENCH_WORKER_SECTIONS ??
    'redis,replayable,latency,postgres,sqlite,api,memory,scaling,engine'
  )
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const registry = benchRegistry();
const effectful = parseFlow(effectfulChainDocument('bench-effectful-5', STEPS), { registry });
const replayable = parseFlow(chainFlowDocument('bench-replayable-5', STEPS), { registry });
const report = { bench: 'worker', quick: QUICK, steps: STEPS, concurrency: CONCURRENCY };

/** One Redis-tier run under a fresh prefix, its keys deleted after. */
async function redisRun(name, options) {
  const prefix = `bench-w-${name}-${process.pid}`;
  const parts = redisParts(prefix);
  try {
    return await runWorkload({ ...parts, registry, steps: STEPS, ...options });
  } finally {
    await parts.close();
    await cleanupRedisPrefix(prefix);
  }
}

/** Another bench script in its own process; its output passed through, its JSON line returned. */
function runScript(script, args = []) {
  try {
    const out = execFileSync(
      process.execPath,
      [...args, fileURLToPath(new URL(script, import.meta.url))],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 900_000 },
    );
    process.stdout.write(out);
    const line = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop();
    return line ? JSON.parse(line) : { error: `${script} printed no JSON line` };
  } catch (error) {
    return { error: String(error.message ?? error) };
  }
}

const log = (...parts) => console.log(`  ${parts.map((p) => p ?? '?').join(' ')}`);

const T0 = performance.now();

function section(name, title) {
  if (!SECTIONS.has(name)) return false;
  console.log(`\n## ${title} (at ${Math.round((performance.now() - T0) / 1000)} s)`);
  return true;
}

console.log(
  `bench:worker${QUICK ? ' (BENCH_QUICK: a smoke run, figures not comparable)' : ''}: ${[...SECTIONS].join(', ')}`,
);

// Warm-up, not reported: the first tier measured would otherwise pay for compiling the engine,
// codec and worker code every tier shares (the DBOS and LangGraph anchors warm up too).
if (SECTIONS.has('redis') || SECTIONS.has('replayable') || SECTIONS.has('latency'))
  await redisRun('warm', { flow: effectful, count: N_WARMUP });

if (section('redis', `Redis, ${STEPS} effectful steps, 1 worker, c=${CONCURRENCY}, N=${N}`)) {
  const ours = await redisRun('effectful', { flow: effectful, count: N });
  const bull = runAnchor('bullmq-steps.mjs', [N, STEPS, CONCURRENCY, 'checkpoint']);
  const floor = runAnchorLines('floor-redis.mjs', [N, STEPS + 1, CONCURRENCY]);
  const setPerS = redisSetRate(REDIS_URL, 50);
  report.redis = { ours, bull, floor, setPerS };
  log(
    'ours',
    ours.executionsPerS,
    'exec/s;',
    ours.checkpointsPerS,
    'saves/s;',
    ours.cpuUsPerExecution,
    'µs CPU/exec',
  );
  log('BullMQ checkpoint', bull.executions_per_s ?? bull.error, 'exec/s');
  for (const l of floor.lines ?? [floor]) log('floor', l.shape ?? '', l.exec_per_s ?? l.error);
  log('redis-benchmark SET -c 50', setPerS, '/s');
}

if (section('replayable', `Redis, ${STEPS} replayable steps (assignment), c=${CONCURRENCY}`)) {
  const ours = await redisRun('replayable', { flow: replayable, count: N });
  const bull = runAnchor('bullmq-steps.mjs', [N, STEPS, CONCURRENCY, 'none']);
  report.replayable = { ours, bull };
  log('ours', ours.executionsPerS, 'exec/s;', ours.checkpointsPerS, 'saves/s');
  log('BullMQ none', bull.executions_per_s ?? bull.error, 'exec/s');
}

if (section('latency', `Redis, ${STEPS} effectful steps, c=1, N=${N_LATENCY}`)) {
  const ours = await redisRun('latency', { flow: effectful, count: N_LATENCY, concurrency: 1 });
  const bull = runAnchor('bullmq-steps.mjs', [N_LATENCY, STEPS, 1, 'checkpoint']);
  report.latency = { ours, bull };
  log('ours', ours.msPerExecution, 'ms/exec');
  log(
    'BullMQ c=1',
    bull.executions_per_s ? (1000 / bull.executions_per_s).toFixed(2) : bull.error,
    'ms/exec',
  );
}

if (section('postgres', `PostgreSQL store + Redis queue, ${STEPS} effectful steps, N=${N_PG}`)) {
  report.postgres = await postgresTier({ registry, flow: effectful, steps: STEPS, count: N_PG });
  report.postgres.dbos = runAnchor('dbos-steps.mjs', [N_PG, STEPS, CONCURRENCY]);
  const { ours, updatesPerS, dbos, error } = report.postgres;
  log('ours', ours?.executionsPerS ?? error, 'exec/s;', ours?.checkpointsPerS, 'saves/s');
  log('pgbench one-row UPDATE -c 50', updatesPerS, '/s');
  log('DBOS', dbos.executions_per_s ?? dbos.error, 'exec/s');
}

if (section('sqlite', `SQLite + local queue, ${STEPS} effectful steps, N=${N_SQLITE}`)) {
  report.sqlite = await sqliteTier({ registry, flow: effectful, steps: STEPS, count: N_SQLITE });
  report.sqlite.langgraph = runAnchor('langgraph-steps.mjs', ['sqlite', N_LANGGRAPH, STEPS]);
  const { ours, commitsPerS, langgraph, error } = report.sqlite;
  log('ours', ours?.executionsPerS ?? error, 'exec/s;', ours?.checkpointsPerS, 'saves/s');
  log("SQLite's own one-row commits", commitsPerS, '/s');
  log('LangGraph.js SqliteSaver', langgraph.executions_per_s ?? langgraph.error, 'exec/s');
}

if (section('api', '`plaita serve`, Redis queue, workers in another process (bench/api.mjs)')) {
  report.api = runScript('./api.mjs');
}

if (section('memory', `Worker RSS over ${N_MEMORY} executions (Redis, effectful, c=50)`)) {
  const samples = [];
  const gc = globalThis.gc ?? (() => {});
  await redisRun('memory', {
    flow: effectful,
    count: N_MEMORY,
    sample: {
      every: Math.max(100, Math.floor(N_MEMORY / 10)),
      fn: (done) => {
        gc();
        samples.push([done, +(process.memoryUsage().rss / 1e6).toFixed(1)]);
      },
    },
  });
  report.memory = { executions: N_MEMORY, samples, exactGc: Boolean(globalThis.gc) };
  log('RSS MB', samples.map(([done, mb]) => `${done}: ${mb}`).join(', '));
}

if (section('scaling', `Scaling: 1 / 2 / 4 worker processes, N=${N_SCALING} each`)) {
  report.scaling = {};
  for (const processes of [1, 2, 4]) {
    report.scaling[processes] = await runProcesses(processes, {
      flow: effectful,
      registry,
      count: N_SCALING,
      concurrency: CONCURRENCY,
    });
    log(`${processes} process(es)`, report.scaling[processes], 'exec/s');
  }
}

if (section('engine', 'In-process engine, 100-node chain (bench/engine.mjs)')) {
  report.engine = runScript('./engine.mjs', ['--expose-gc']);
}

report.seconds = Math.round((performance.now() - T0) / 1000);
console.log(`\n${JSON.stringify(report)}`);
console.log(`\n## Summary (bench:worker, ${report.seconds} s${QUICK ? ', BENCH_QUICK' : ''})\n`);
const summary = buildSummary(report, { n: N, steps: STEPS, cores: availableParallelism() });
if (report.api && !report.api.error && !report.api.worker_during_load)
  summary.note(
    'API: the worker process ran the execution the GET reads, then stopped before the load (BENCH_API_WORKER_DURING_LOAD=1 keeps it).',
  );
console.log(summary.markdown());
process.exit(0);
