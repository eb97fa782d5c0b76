// Code node benchmark (issue 12): a 5-node flow with 3 JavaScript code nodes doing small
// arithmetic, beside the same flow with assignment nodes in their place; µs per code node
// (target ≤ 50 µs warm), heap and RSS over 1,000 runs (flat), and the Python backend's
// per-call latency when python3 is on PATH.
// Run: npm run build && node --expose-gc bench/code-node.mjs
import { execFileSync } from 'node:child_process';
import { createDefaultRegistry, parseFlow, runFlow } from '../dist/index.js';
import { loadQuickJS } from '../dist/nodes/code/code-runtime.js';

const LIMITS = { codeBackends: ['quickjs', 'python'] };
const registry = createDefaultRegistry({ limits: LIMITS });

function flowOf(kind) {
  const step = (id, next, js, expression) =>
    kind === 'code'
      ? { type: 'code', id, code: js, input: { n: '$INPUT.n' }, next }
      : { type: 'assignment', id, output: expression, next };
  return parseFlow(
    {
      flow_id: `bench-${kind}`,
      nodes: [
        { type: 'start', id: 'start', next: 'a' },
        step('a', 'b', 'function run(i) { return i.n * 2 + 1 }', '$F.add($F.mul($INPUT.n, 2), 1)'),
        step(
          'b',
          'c',
          'function run(i) { return (i.n + 3) % 7 }',
          '$F.mod($F.add($INPUT.n, 3), 7)',
        ),
        { type: 'assignment', id: 'c', output: { a: '$NODE.a', b: '$NODE.b' }, next: 'd' },
        step(
          'd',
          'end',
          'function run(i) { return i.n * i.n - 4 }',
          '$F.sub($F.mul($INPUT.n, $INPUT.n), 4)',
        ),
        { type: 'end', id: 'end', output: { a: '$NODE.a', b: '$NODE.b', d: '$NODE.d' } },
      ],
    },
    { registry },
  );
}

async function usPerRun(flow, runs) {
  for (let i = 0; i < 500; i++) await runFlow(flow, { n: i }, { limits: LIMITS });
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await runFlow(flow, { n: i }, { limits: LIMITS });
  return ((performance.now() - t0) * 1000) / runs;
}

async function memoryOver(flow, runs) {
  const gc = globalThis.gc ?? (() => {});
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  for (let i = 0; i < runs; i++) await runFlow(flow, { n: i }, { limits: LIMITS });
  gc();
  return {
    runs,
    heapGrowthKB: Math.round((process.memoryUsage().heapUsed - heap0) / 1024),
    rssGrowthKB: Math.round((process.memoryUsage().rss - rss0) / 1024),
    exactGc: Boolean(globalThis.gc),
  };
}

async function pythonLatency(calls) {
  try {
    execFileSync('python3', ['-c', 'pass']);
  } catch {
    return 'python3 not found';
  }
  const flow = parseFlow(
    {
      flow_id: 'bench-python',
      nodes: [
        { type: 'start', id: 's', next: 'p' },
        {
          type: 'code',
          id: 'p',
          lang: 'python',
          code: 'def run(i): return i * 2',
          input: '$INPUT.n',
          next: 'e',
        },
        { type: 'end', id: 'e', output: '$NODE.p' },
      ],
    },
    { registry },
  );
  await runFlow(flow, { n: 1 }, { limits: LIMITS });
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await runFlow(flow, { n: i }, { limits: LIMITS });
  return +((performance.now() - t0) / calls).toFixed(1);
}

await loadQuickJS();
const codeFlow = flowOf('code');
const assignmentFlow = flowOf('assignment');
const runs = 5000;
const codeUs = await usPerRun(codeFlow, runs);
const assignmentUs = await usPerRun(assignmentFlow, runs);
// The flows differ only in nodes a, b and d: the difference is what the sandbox adds.
const perAssignment = assignmentUs / 5;
const perCode = (codeUs - assignmentUs) / 3 + perAssignment;
console.log(
  JSON.stringify(
    {
      flow: '5 nodes, 3 JavaScript code nodes (small arithmetic)',
      usPerFlowRun: { code: +codeUs.toFixed(2), assignment: +assignmentUs.toFixed(2) },
      usPerCodeNode: +perCode.toFixed(2),
      usPerAssignmentNode: +perAssignment.toFixed(2),
      ratioCodeToAssignment: +(perCode / perAssignment).toFixed(1),
      targetUsPerCodeNode: 50,
      memory1000Runs: await memoryOver(codeFlow, 1000),
      pythonMsPerCall: await pythonLatency(20),
    },
    null,
    2,
  ),
);
