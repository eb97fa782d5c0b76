// Execution stores side by side (docs/durable-contract.md §2–3): checkpoint cost per store (save + load of a
// 5 KB and a 100 KB context), the codec against plain JSON on a JSON-only 100 KB context
// (target: within 2x), and a 200-node flow with 50 KB results checkpointed node by node with
// `changedNodes` (target: the last node as fast as the first). Prints figures only, then one
// JSON line with all of them. Build first:
//   npx tsc -p tsconfig.build.json && node scripts/copy-assets.mjs && node bench/store.mjs
// PostgreSQL: PLAITA_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); a
// schema of its own is created and dropped. Skipped, with the reason, when unreachable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  decodeState,
  encodeState,
  MemoryExecutionStore,
  newExecutionState,
} from '../dist/index.js';
import { PostgresExecutionStore } from '../dist/postgres.js';
import { SqliteExecutionStore } from '../dist/sqlite.js';

const POSTGRES_URL =
  process.env.PLAITA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const KB = 1024;
const FLOW_NODES = 200;
const FLOW_RESULT_BYTES = 50 * KB;
/** Saves at each end of the 200-node flow that are compared (their median). */
const EDGE = 10;
/** Unmeasured save + load pairs first, so the JIT and the connection pool are warm. */
const WARM_UP = 30;

/** A node result shaped like an HTTP call's output, about `bytes` of JSON. */
function jsonResult(seed, bytes) {
  const item = (i) => ({
    id: seed * 100_000 + i,
    name: `customer ${seed}-${i}`,
    email: `user${i}@example.com`,
    active: i % 3 !== 0,
    score: (i * 7.31) % 100,
    tags: ['alpha', 'beta', `t${i % 5}`],
    address: { street: `${i} Main Street`, city: 'Springfield', zip: String(10000 + i) },
  });
  const rows = Math.max(1, Math.round(bytes / JSON.stringify(item(0)).length));
  return {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: { items: Array.from({ length: rows }, (_, i) => item(i)), total: rows },
  };
}

/** An engine-shaped context of about `bytes`, node results of 2 KB each. */
function contextOf(bytes) {
  const context = {
    $INPUT: { customerId: 42 },
    $GLOBAL: { flow_id: 'bench' },
    $NODE: {},
    $LAST_NODE: null,
    $BRANCH: null,
    $VISITS: {},
  };
  for (let n = 0; JSON.stringify(context).length < bytes; n++)
    addNode(context, `node-${n}`, jsonResult(n, Math.min(2 * KB, bytes)));
  return context;
}

function addNode(context, id, result) {
  context.$NODE[id] = result;
  context.$VISITS[id] = 1;
  context.$LAST_NODE = id;
}

/** Collects garbage between phases when run with --expose-gc (npm run bench:store does). */
const settle = () => globalThis.gc?.();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const elapsedUs = (start) => Number(process.hrtime.bigint() - start) / 1000;

async function timed(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return elapsedUs(start);
}

/** Median µs of a full save and of a load of the same state, over `runs` (after a warm-up). */
async function checkpointCost(store, bytes, runs) {
  const state = newExecutionState({
    executionId: `ckpt-${bytes}`,
    flowId: 'bench',
    status: 'running',
    context: contextOf(bytes),
  });
  const saves = [];
  const loads = [];
  for (let i = -WARM_UP; i < runs; i++) {
    const save = await timed(() => store.save({ ...state, version: i + WARM_UP }));
    const load = await timed(() => store.load(state.executionId));
    if (i >= 0) {
      saves.push(save);
      loads.push(load);
    }
  }
  return { saveUs: median(saves), loadUs: median(loads), totalUs: median(saves) + median(loads) };
}

/**
 * Runs the 200-node flow: one incremental save per node (`changedNodes: [id]`), as the engine
 * checkpoints. Returns the median of the first and of the last EDGE saves, and, for contrast,
 * what one full rewrite of the final state costs.
 */
async function flowCheckpoints(store, run, nodes = FLOW_NODES) {
  const context = {
    $INPUT: { customerId: 42 },
    $GLOBAL: {},
    $NODE: {},
    $LAST_NODE: null,
    $BRANCH: null,
    $VISITS: {},
  };
  const base = newExecutionState({
    executionId: `flow-${run}`,
    flowId: 'bench',
    status: 'running',
    context,
  });
  const times = [];
  for (let n = 0; n < nodes; n++) {
    const id = `node-${n}`;
    addNode(context, id, jsonResult(n, FLOW_RESULT_BYTES));
    const state = { ...base, version: n + 1, context: { ...context } };
    times.push(await timed(() => store.save(state, { changedNodes: [id] })));
  }
  const full = await timed(() =>
    store.save({ ...base, version: nodes + 1, context: { ...context } }),
  );
  const loaded = await store.load(base.executionId);
  if (Object.keys(loaded.context.$NODE).length !== nodes)
    throw new Error('the flow did not load back whole');
  await store.delete(base.executionId);
  return {
    firstUs: median(times.slice(0, EDGE)),
    lastUs: median(times.slice(-EDGE)),
    fullRewriteUs: full,
  };
}

async function postgresAvailable() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (error) {
    console.log(`postgres: skipped (${error.message})`);
    return false;
  }
}

async function openStores() {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-bench-'));
  const schema = `plaita_bench_${process.pid}`;
  const stores = [
    ['memory', new MemoryExecutionStore()],
    ['sqlite', new SqliteExecutionStore({ path: join(dir, 'bench.db') })],
  ];
  if (await postgresAvailable())
    stores.push([
      'postgres',
      new PostgresExecutionStore(
        { connectionString: POSTGRES_URL },
        { schema, applicationName: 'plaita-bench' },
      ),
    ]);
  const cleanup = async () => {
    for (const [, store] of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (stores.some(([name]) => name === 'postgres')) {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  };
  return { stores, cleanup };
}

/** The codec against JSON.stringify / JSON.parse on a JSON-only 100 KB context (best of rounds). */
function codecVersusJson() {
  const state = newExecutionState({
    executionId: 'codec',
    flowId: 'bench',
    context: contextOf(100 * KB),
  });
  const text = encodeState(state);
  const best = (fn, iterations = 50, rounds = 15) => {
    fn();
    let min = Infinity;
    for (let r = 0; r < rounds; r++) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) fn();
      min = Math.min(min, elapsedUs(start) / iterations);
    }
    return min;
  };
  const encodeUs = best(() => encodeState(state));
  const stringifyUs = best(() => JSON.stringify(state));
  const decodeUs = best(() => decodeState(text));
  const parseUs = best(() => JSON.parse(text));
  return {
    bytes: text.length,
    encodeUs,
    stringifyUs,
    encodeRatio: encodeUs / stringifyUs,
    decodeUs,
    parseUs,
    decodeRatio: decodeUs / parseUs,
  };
}

const f = (us) =>
  (us >= 10_000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(0)} µs`).padStart(10);

async function main() {
  console.log(`node ${process.version}`);
  const { stores, cleanup } = await openStores();
  const figures = { stores: {} };
  try {
    console.log('\ncheckpoint cost (median, full save then load of the same state)');
    console.log(
      `${'store'.padEnd(10)} ${'5 KB save'.padStart(10)} ${'5 KB load'.padStart(10)} ${'100 KB save'.padStart(12)} ${'100 KB load'.padStart(12)}`,
    );
    for (const [name, store] of stores) {
      settle();
      const small = await checkpointCost(store, 5 * KB, 200);
      settle();
      const large = await checkpointCost(store, 100 * KB, 50);
      figures.stores[name] = { checkpoint5KB: small, checkpoint100KB: large };
      console.log(
        `${name.padEnd(10)} ${f(small.saveUs)} ${f(small.loadUs)} ${f(large.saveUs).padStart(12)} ${f(large.loadUs).padStart(12)}`,
      );
    }

    settle();
    const codec = codecVersusJson();
    figures.codec = codec;
    console.log(
      `\ncodec vs JSON on a JSON-only ${(codec.bytes / KB).toFixed(0)} KB state (best round)`,
    );
    console.log(
      `encodeState ${f(codec.encodeUs)}  JSON.stringify ${f(codec.stringifyUs)}  ratio ${codec.encodeRatio.toFixed(2)}x (target ≤ 2x)`,
    );
    console.log(
      `decodeState ${f(codec.decodeUs)}  JSON.parse     ${f(codec.parseUs)}  ratio ${codec.decodeRatio.toFixed(2)}x`,
    );

    console.log(
      `\n${FLOW_NODES}-node flow, ${FLOW_RESULT_BYTES / KB} KB per result, one incremental save per node (median of the first / last ${EDGE} saves, 3 runs)`,
    );
    console.log(
      `${'store'.padEnd(10)} ${'first'.padStart(10)} ${'last'.padStart(10)} ${'last/first'.padStart(11)} ${'full rewrite at the end'.padStart(24)}`,
    );
    for (const [name, store] of stores) {
      await flowCheckpoints(store, 'warm-up', 2 * EDGE); // unmeasured: JIT and statement cache
      const runs = [];
      // No gc() here: a heap shrunk by a full collection makes the first saves pay for its regrowth.
      for (let run = 0; run < 3; run++) runs.push(await flowCheckpoints(store, run));
      const flow = {
        firstUs: median(runs.map((r) => r.firstUs)),
        lastUs: median(runs.map((r) => r.lastUs)),
        fullRewriteUs: median(runs.map((r) => r.fullRewriteUs)),
      };
      flow.lastOverFirst = flow.lastUs / flow.firstUs;
      figures.stores[name].flow200 = flow;
      console.log(
        `${name.padEnd(10)} ${f(flow.firstUs)} ${f(flow.lastUs)} ${`${flow.lastOverFirst.toFixed(2)}x`.padStart(11)} ${f(flow.fullRewriteUs).padStart(24)}`,
      );
    }
  } finally {
    await cleanup();
  }
  console.log(JSON.stringify({ bench: 'store', node: process.version, ...figures }));
}

await main();
