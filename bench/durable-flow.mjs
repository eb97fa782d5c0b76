// A 5-node flow with a checkpoint after every node, run RUNS times in sequence, on SQLite and
// on PostgreSQL — beside LangGraph.js on the same chain with SqliteSaver / PostgresSaver
// (../shared/anchors-bench/langgraph-steps.mjs), in the same run. Prints both and the ratio.
// Ours: the engine's Stepper one node at a time (one live execution, as the worker keeps one
// per delivery), each step's checkpoint saved (only the new node result and the header) before
// the next node runs — what the worker does, without the queue and the lease.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseFlow, newExecutionState } from '../dist/index.js';
import { Stepper } from '../dist/engine/stepper.js';
import { SqliteExecutionStore } from '../dist/sqlite.js';
import { PostgresExecutionStore } from '../dist/postgres.js';
import { runAnchor, ratio } from './anchors.mjs';
import { chainFlowDocument } from './chain-flow.mjs';

const RUNS = Number(process.env.BENCH_DURABLE_RUNS ?? 2000);
/** A long-lived worker runs warm: the first ~1000 executions mostly measure the JIT. */
const WARM_UP = Number(process.env.BENCH_DURABLE_WARM_UP ?? 300);
const PG_BASE = process.env.PGURL ?? 'postgresql://postgres:postgres@127.0.0.1:5432';
const STEPS = 5;

const flow = parseFlow(chainFlowDocument('chain5', STEPS));

/** One execution, checkpointed after every node. */
async function runDurably(store, i) {
  const executionId = `bench-${process.pid}-${i}`;
  let state = newExecutionState({ executionId, flowId: 'chain5', status: 'running', context: {} });
  const stepper = new Stepper(flow, { input: { i }, executionId });
  let outcome = await stepper.step();
  let first = true;
  for (;;) {
    if (outcome.status === 'failed') throw outcome.error;
    state = {
      ...state,
      context: outcome.context,
      version: state.version + 1,
      status: outcome.status === 'completed' ? 'completed' : 'running',
      ...(outcome.status === 'completed'
        ? { result: outcome.result, endedAt: new Date().toISOString() }
        : {}),
    };
    await store.save(
      state,
      first || outcome.changedNodes === null ? {} : { changedNodes: outcome.changedNodes },
    );
    first = false;
    if (outcome.status === 'completed') {
      stepper.dispose();
      return state;
    }
    outcome = await stepper.step();
  }
}

async function measure(store) {
  for (let i = 0; i < WARM_UP; i++) await runDurably(store, -i - 1);
  const t0 = performance.now();
  for (let i = 0; i < RUNS; i++) await runDurably(store, i);
  const ms = performance.now() - t0;
  return {
    executionsPerS: Math.round(RUNS / (ms / 1000)),
    usPerStep: +((ms * 1000) / (RUNS * STEPS)).toFixed(1),
  };
}

const report = { bench: 'durable-flow', runs: RUNS, warmUp: WARM_UP, steps: STEPS };

const dir = mkdtempSync(join(tmpdir(), 'plaita-durable-'));
const sqlite = new SqliteExecutionStore({ path: join(dir, 'bench.db') });
const oursSqlite = await measure(sqlite);
await sqlite.close();
rmSync(dir, { recursive: true, force: true });
const lgSqlite = runAnchor('langgraph-steps.mjs', ['sqlite', Math.min(RUNS, 300), STEPS]);
report.sqlite = {
  ours_executions_per_s: oursSqlite.executionsPerS,
  langgraph_executions_per_s: lgSqlite.executions_per_s ?? null,
  speedup: ratio(oursSqlite.executionsPerS, lgSqlite.executions_per_s),
  ...(lgSqlite.error ? { anchorError: lgSqlite.error } : {}),
};
console.log(
  `5-node flow, checkpoint per node, SQLite:   ours ${oursSqlite.executionsPerS}/s, LangGraph.js SqliteSaver ${lgSqlite.executions_per_s ?? '?'}/s → ${report.sqlite.speedup ?? '?'}x`,
);

const schema = `bench_${process.pid}`;
const admin = new pg.Client({ connectionString: `${PG_BASE}/test` });
try {
  await admin.connect();
  const postgres = new PostgresExecutionStore({ connectionString: `${PG_BASE}/test` }, { schema });
  const oursPg = await measure(postgres);
  await postgres.close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const lgPg = runAnchor('langgraph-steps.mjs', ['postgres', Math.min(RUNS, 300), STEPS]);
  report.postgres = {
    ours_executions_per_s: oursPg.executionsPerS,
    langgraph_executions_per_s: lgPg.executions_per_s ?? null,
    speedup: ratio(oursPg.executionsPerS, lgPg.executions_per_s),
    ...(lgPg.error ? { anchorError: lgPg.error } : {}),
  };
  console.log(
    `5-node flow, checkpoint per node, Postgres: ours ${oursPg.executionsPerS}/s, LangGraph.js PostgresSaver ${lgPg.executions_per_s ?? '?'}/s → ${report.postgres.speedup ?? '?'}x`,
  );
} catch (error) {
  report.postgres = { skipped: String(error.message ?? error) };
  console.log(`Postgres part skipped: ${report.postgres.skipped}`);
} finally {
  await admin.end().catch(() => {});
}
console.log(JSON.stringify(report));
