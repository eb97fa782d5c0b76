// Engine benchmark (issue 2): µs per node on 100-node and 5-node assignment chains, ours beside
// LangGraph.js on the same chain in the same run; heap growth over 10,000 runs; expression rate.
// Run: npm run bench:engine   (node --expose-gc for exact heap figures); bench:worker runs it too
// for its summary row (target ≥ 500x, issue 31).
import { parseFlow, runFlow } from '../dist/index.js';
import { runAnchor, ratio } from './anchors.mjs';

function chain(steps) {
  const nodes = [{ type: 'start', id: 'start', next: 'a0' }];
  for (let i = 0; i < steps; i++) {
    const prev = i === 0 ? '$INPUT.i' : `$NODE.a${i - 1}.v`;
    nodes.push({
      type: 'assignment',
      id: `a${i}`,
      output: {
        v: `$F.add(${prev}, 1)`,
        label: `step {% $INPUT.name %} #{% $F.add(${prev}, ${i}) %}`,
        up: `$F.upper($INPUT.name)`,
      },
      next: i === steps - 1 ? 'end' : `a${i + 1}`,
    });
  }
  nodes.push({ type: 'end', id: 'end', output: `$NODE.a${steps - 1}.v` });
  return parseFlow({ flow_id: `chain-${steps}`, nodes });
}

async function usPerNode(flow, steps, runs) {
  for (let i = 0; i < 200; i++) await runFlow(flow, { i, name: 'ada' });
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await runFlow(flow, { i, name: 'ada' });
  const ms = performance.now() - t0;
  return {
    usPerNode: +((ms * 1000) / (runs * steps)).toFixed(2),
    executionsPerS: Math.round(runs / (ms / 1000)),
  };
}

async function heapGrowth(flow, runs) {
  const gc = globalThis.gc ?? (() => {});
  for (let i = 0; i < 1000; i++) await runFlow(flow, { i, name: 'ada' });
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const mid = [];
  for (let i = 0; i < runs; i++) {
    await runFlow(flow, { i, name: 'ada' });
    if (i % 2500 === 2499) {
      gc();
      mid.push(process.memoryUsage().heapUsed);
    }
  }
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  return {
    runs,
    heapBeforeMB: +(before / 1e6).toFixed(2),
    heapAfterMB: +(after / 1e6).toFixed(2),
    growthKB: Math.round((after - before) / 1024),
    checkpointsMB: mid.map((m) => +(m / 1e6).toFixed(2)),
    exactGc: Boolean(globalThis.gc),
  };
}

// BENCH_QUICK=1: a smoke run (bench:worker's quick mode), figures not meant to be compared.
const QUICK = process.env.BENCH_QUICK === '1';
const knob = (name, full, quick) => Number(process.env[name] ?? (QUICK ? quick : full));
const RUNS_100 = knob('BENCH_RUNS_100', 400, 40);
const RUNS_5 = knob('BENCH_RUNS_5', 4000, 400);
const HEAP_RUNS = knob('BENCH_ENGINE_HEAP_RUNS', 10_000, 1000);
const LANGGRAPH_RUNS_100 = knob('BENCH_LANGGRAPH_RUNS_100', 60, 10);
const LANGGRAPH_RUNS_5 = knob('BENCH_LANGGRAPH_RUNS_5', 300, 30);
const ours100 = await usPerNode(chain(100), 100, RUNS_100);
const ours5 = await usPerNode(chain(5), 5, RUNS_5);
const heap = await heapGrowth(chain(5), HEAP_RUNS);
const lg100 = runAnchor('langgraph-steps.mjs', ['none', LANGGRAPH_RUNS_100, 100]);
const lg5 = runAnchor('langgraph-steps.mjs', ['none', LANGGRAPH_RUNS_5, 5]);

const report = {
  bench: 'engine',
  chain100: {
    ours_us_per_node: ours100.usPerNode,
    langgraph_us_per_node: lg100.us_per_step ?? null,
    speedup: ratio(lg100.us_per_step, ours100.usPerNode),
    ours_executions_per_s: ours100.executionsPerS,
  },
  chain5: {
    ours_us_per_node: ours5.usPerNode,
    langgraph_us_per_node: lg5.us_per_step ?? null,
    speedup: ratio(lg5.us_per_step, ours5.usPerNode),
    ours_executions_per_s: ours5.executionsPerS,
    langgraph_executions_per_s: lg5.executions_per_s ?? null,
  },
  heap,
  ...(lg100.error || lg5.error ? { anchorErrors: [lg100.error, lg5.error].filter(Boolean) } : {}),
};
console.log(
  `engine, 100-node chain: ours ${ours100.usPerNode} µs/node, LangGraph.js ${lg100.us_per_step ?? '?'} µs/node → ${report.chain100.speedup ?? '?'}x`,
);
console.log(
  `engine, 5-node chain:   ours ${ours5.usPerNode} µs/node, LangGraph.js ${lg5.us_per_step ?? '?'} µs/node → ${report.chain5.speedup ?? '?'}x`,
);
console.log(
  `heap over ${heap.runs} runs: ${heap.heapBeforeMB} MB → ${heap.heapAfterMB} MB (${heap.growthKB} KB; samples ${heap.checkpointsMB.join(', ')} MB${heap.exactGc ? '' : '; run with --expose-gc for exact figures'})`,
);
console.log(JSON.stringify(report));
