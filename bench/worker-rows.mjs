// The summary table of bench/worker.mjs, built from its report in the issue's order (issue 31):
// each row ours, the peer from the same run, the ratio, the target, pass/fail. A section that
// did not run adds no row; one that failed says what failed.
import { check, num, quotient, SummaryTable } from './summary-table.mjs';

const x = (q, digits = 2) => (q === null ? '?' : `${q.toFixed(digits)}x`);
const share = (q) => (q === null ? '?' : `${(q * 100).toFixed(1)}%`);

function floorShapes(floor) {
  const shape = (name) => floor?.lines?.find((l) => l.shape === name);
  return {
    unbatched: shape('unbatched')?.exec_per_s,
    autopipe: shape('autopipe')?.exec_per_s,
    batched: shape('batched')?.exec_per_s,
    bullmq: shape('bullmq')?.exec_per_s,
  };
}

function redisRows(table, { ours, bull, floor }, { n, steps }) {
  const bullPerS = bull?.executions_per_s;
  const f = floorShapes(floor);
  const vsBull = quotient(ours.executionsPerS, bullPerS);
  const vsFloor = quotient(ours.executionsPerS, f.batched);
  table.add({
    row: `Redis, ${steps} effectful steps (bench_step), 1 worker, c=50, N=${n}`,
    ours: `${num(ours.executionsPerS)} exec/s`,
    peer: `BullMQ step job, updateData per step: ${num(bullPerS)} exec/s${bull?.error ? ' (failed)' : ''}`,
    ratio: `${x(vsBull)}; ${share(vsFloor)} of floor batched`,
    target: '≥ 1.5x, and ≥ 60% of floor batched',
    pass: check([vsBull, vsFloor], () => vsBull >= 1.5 && vsFloor >= 0.6),
  });
  table.add({
    row: `floor-redis.mjs ${n} ${steps + 1} 50 (bare ioredis, no engine)`,
    ours: `ours ${num(ours.executionsPerS)} exec/s`,
    peer: `unbatched ${num(f.unbatched)} / autopipe ${num(f.autopipe)} / batched ${num(f.batched)} exec/s (its BullMQ ${num(f.bullmq)})${floor?.error ? ' (failed)' : ''}`,
    ratio: `${share(vsFloor)} of batched`,
    target: '≥ 60% of batched',
    pass: check([vsFloor], () => vsFloor >= 0.6),
  });
}

function replayableRow(table, { ours, bull }, { steps }) {
  const q = quotient(ours.executionsPerS, bull?.executions_per_s);
  table.add({
    row: `Redis, ${steps} replayable steps (assignment), c=50`,
    ours: `${num(ours.executionsPerS)} exec/s`,
    peer: `BullMQ, the ${steps} steps in one job (none): ${num(bull?.executions_per_s)} exec/s${bull?.error ? ' (failed)' : ''}`,
    ratio: x(q),
    target: '≥ 2x',
    pass: check([q], () => q >= 2),
  });
}

function latencyRow(table, { ours, bull }, { steps }) {
  const bullMs = bull?.executions_per_s ? 1000 / bull.executions_per_s : null;
  const q = quotient(ours.msPerExecution, bullMs);
  table.add({
    row: `Redis, ${steps} effectful steps, c=1`,
    ours: `${num(ours.msPerExecution, 2)} ms/exec`,
    peer: `BullMQ step job, c=1: ${num(bullMs ?? NaN, 2)} ms/exec${bull?.error ? ' (failed)' : ''}`,
    ratio: `${x(q)} (ms, lower is better)`,
    target: '≤ BullMQ (≤ 1.00x)',
    pass: check([q], () => q <= 1),
  });
}

function postgresRow(table, pgReport, { steps }) {
  const ours = pgReport.ours?.executionsPerS;
  const dbos = pgReport.dbos?.executions_per_s;
  const q = quotient(ours, dbos);
  table.add({
    row: `PostgreSQL store + Redis queue, ${steps} effectful steps, c=50`,
    ours: pgReport.error ? `failed: ${pgReport.error.slice(0, 80)}` : `${num(ours)} exec/s`,
    peer: `DBOS, ${steps} steps, c=50: ${num(dbos)} exec/s${pgReport.dbos?.error ? ' (failed)' : ''}`,
    ratio: x(q, 1),
    target: '≥ 5x',
    pass: check([q], () => q >= 5),
  });
}

function sqliteRow(table, sqlite, { steps }) {
  const ours = sqlite.ours?.executionsPerS;
  const peer = sqlite.langgraph?.executions_per_s;
  const q = quotient(ours, peer);
  table.add({
    row: `SQLite + local queue, ${steps} effectful steps, c=${sqlite.concurrency ?? '?'}`,
    ours: sqlite.error ? `failed: ${sqlite.error.slice(0, 80)}` : `${num(ours)} exec/s`,
    peer: `LangGraph.js SqliteSaver, ${steps} nodes: ${num(peer)} exec/s${sqlite.langgraph?.error ? ' (failed)' : ''}`,
    ratio: x(q, 1),
    target: '≥ 20x',
    pass: check([q], () => q >= 20),
  });
}

function apiRows(table, api) {
  const health = api.healthz;
  const peer = api.error
    ? `failed: ${api.error.slice(0, 80)}`
    : `/healthz: ${num(health.requestsPerS)} req/s (p99 ${health.p99Ms} ms)`;
  const where = `\`plaita serve\` (${api.store ?? '?'} store, Redis queue, worker in another process)`;
  for (const [which, label, minimum] of [
    ['get', 'GET an execution (completed)', 0.35],
    ['post', 'POST a start that only enqueues', 0.25],
  ]) {
    const r = api[which];
    const q = quotient(r?.requestsPerS, health?.requestsPerS);
    table.add({
      row: `${where}: ${label}, ${api.connections ?? 50} connections`,
      ours: r ? `${num(r.requestsPerS)} req/s, p50 ${r.p50Ms} / p99 ${r.p99Ms} ms` : '?',
      peer,
      ratio: q === null ? '?' : q.toFixed(2),
      target: `≥ ${minimum}, p99 < 20 ms`,
      pass: check([q, r?.p99Ms], () => q >= minimum && r.p99Ms < 20),
    });
  }
}

function memoryRow(table, memory) {
  const rss = memory.samples.map(([, mb]) => mb);
  const first = rss[0];
  const last = rss.at(-1);
  // Flat: the last sample near the run's typical level. A leak grows to the end, above the
  // median; the early peak of a warming heap does not count against it.
  const median = [...rss].sort((a, b) => a - b)[Math.floor(rss.length / 2)];
  table.add({
    row: `Worker RSS over ${num(memory.executions)} executions (Redis, effectful, c=50)`,
    ours: `first ${num(first, 1)} / last ${num(last, 1)} MB (peak ${num(Math.max(...rss), 1)}, median ${num(median, 1)})`,
    ratio: `${x(quotient(last, median))} last/median`,
    target: 'flat: last ≤ 1.1 × median sample',
    pass: check([last, median], () => last <= median * 1.1),
  });
}

function engineRow(table, engine) {
  const c = engine.chain100;
  const q = quotient(c?.langgraph_us_per_node, c?.ours_us_per_node);
  table.add({
    row: 'In-process engine, 100-node chain (bench:engine)',
    ours: engine.error
      ? `failed: ${engine.error.slice(0, 80)}`
      : `${num(c.ours_us_per_node, 2)} µs/node`,
    peer: `LangGraph.js, same chain: ${num(c?.langgraph_us_per_node ?? NaN, 0)} µs/node`,
    ratio: x(q, 0),
    target: '≥ 500x',
    pass: check([q], () => q >= 500),
  });
}

function savesRow(table, report) {
  const set = report.redis?.setPerS;
  const part = (name, run) =>
    run
      ? `${name} ${num(run.checkpointsPerS)} saves/s (${run.checkpointsPerExecution} per exec) = ${share(quotient(run.checkpointsPerS, set))}`
      : null;
  table.add({
    row: 'Checkpointed saves/s (Redis, c=50) as a share of `redis-benchmark -t set -c 50`',
    ours: [part('effectful', report.redis?.ours), part('replayable', report.replayable?.ours)]
      .filter(Boolean)
      .join('; '),
    peer: `SET: ${num(set ?? NaN)} req/s`,
    ratio: share(quotient(report.redis?.ours?.checkpointsPerS, set)),
  });
}

function scalingRow(table, scaling, { cores }) {
  const [one, two, four] = [scaling[1], scaling[2], scaling[4]];
  // Where adding processes stops helping (< 10% more): the core count on a small machine.
  const flat = [
    [2, two, one],
    [4, four, two],
  ].find(
    ([, more, fewer]) => Number.isFinite(more) && Number.isFinite(fewer) && more < fewer * 1.1,
  );
  table.add({
    row: 'Scaling, 1 / 2 / 4 worker processes (Redis, effectful, c=50 each)',
    ours: `${num(one)} / ${num(two)} / ${num(four)} exec/s`,
    ratio: `${x(quotient(two, one))} / ${x(quotient(four, one))} of 1 process`,
    target: `flattens at the core count (${cores} here): ${flat ? `flat from ${flat[0]} processes` : 'no flattening seen'}`,
  });
}

export function buildSummary(report, { n, steps, cores }) {
  const table = new SummaryTable();
  if (report.redis) redisRows(table, report.redis, { n, steps });
  if (report.replayable) replayableRow(table, report.replayable, { steps });
  if (report.latency) latencyRow(table, report.latency, { steps });
  if (report.postgres) postgresRow(table, report.postgres, { steps });
  if (report.sqlite) sqliteRow(table, report.sqlite, { steps });
  if (report.api) apiRows(table, report.api);
  if (report.memory) memoryRow(table, report.memory);
  if (report.engine) engineRow(table, report.engine);
  if (report.redis || report.replayable) savesRow(table, report);
  if (report.scaling) scalingRow(table, report.scaling, { cores });
  return table;
}
