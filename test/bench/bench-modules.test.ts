// Smoke test of bench:worker's modules (they import the BUILT package in dist/): the workloads
// parse and compute what they should, chain-flow.mjs loads as a plugin module, the harness runs a
// handful of executions through a real worker on real Redis and counts them through the worker's
// metrics, and the summary rows pass, fail or say "not measured" by their targets. No timing is
// asserted: figures belong to `npm run bench:worker`.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bench = (name: string): string =>
  fileURLToPath(new URL(`../../bench/${name}`, import.meta.url));
// The bench's plain .mjs modules have no type declarations to check against.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const load = (name: string): Promise<any> => import(bench(name));

const prefix = `test-bench-${process.pid}`;

afterAll(async () => {
  const { cleanupRedisPrefix } = await load('worker-harness.mjs');
  await cleanupRedisPrefix(prefix);
});

describe('bench:worker modules', () => {
  it('runs both workloads to the same chained result shape', async () => {
    const { parseFlow, runFlow } = await load('../dist/index.js');
    const { benchRegistry, chainFlowDocument, effectfulChainDocument } =
      await load('chain-flow.mjs');
    const registry = benchRegistry();
    const effectful = parseFlow(effectfulChainDocument('e', 5), { registry });
    expect(await runFlow(effectful, { i: 1 }, { registry })).toMatchObject({
      n0: { i: 2 },
      n4: { i: 6 },
    });
    const replayable = parseFlow(chainFlowDocument('r', 5), { registry });
    expect(await runFlow(replayable, { i: 1 })).toMatchObject({ n0: { out: 1 }, n4: { out: 5 } });
  });

  it('loads chain-flow.mjs as a plugin module, as `plaita worker --nodes` does', async () => {
    const { createDefaultRegistry, loadNodeModules } = await load('../dist/index.js');
    const registry = createDefaultRegistry();
    const report = await loadNodeModules(registry, [bench('chain-flow.mjs')]);
    expect(report.failed).toEqual([]);
    expect(registry.has('bench_step')).toBe(true);
  });

  it('runs a few effectful executions through a worker and counts them and their saves', async () => {
    const { parseFlow } = await load('../dist/index.js');
    const { benchRegistry, effectfulChainDocument } = await load('chain-flow.mjs');
    const { redisParts, runWorkload } = await load('worker-harness.mjs');
    const registry = benchRegistry();
    const flow = parseFlow(effectfulChainDocument('bench-smoke', 5), { registry });
    const parts = redisParts(prefix);
    try {
      const result = await runWorkload({ ...parts, flow, registry, steps: 5, count: 5 });
      expect(result.failed).toBe(0);
      expect(result.executionsPerS).toBeGreaterThan(0);
      // Effectful steps are each checkpointed before the next runs: at least one save apiece.
      expect(result.checkpointsPerExecution).toBeGreaterThanOrEqual(5);
    } finally {
      await parts.close();
    }
  });

  it('passes, fails or leaves unmeasured each row by its target', async () => {
    const { buildSummary } = await load('worker-rows.mjs');
    const redis = (ours: number, bull: number, batched: number): unknown => ({
      ours: { executionsPerS: ours, checkpointsPerS: 1, checkpointsPerExecution: 1 },
      bull: { executions_per_s: bull },
      floor: { lines: [{ shape: 'batched', exec_per_s: batched }] },
      setPerS: 100,
    });
    const verdict = (report: unknown): string => {
      const table: string = buildSummary(report, { n: 1, steps: 5, cores: 2 }).markdown();
      return table.split('\n')[2]!.split(' | ').at(-1)!.replace(' |', '');
    };
    expect(verdict({ redis: redis(160, 100, 250) })).toBe('pass');
    expect(verdict({ redis: redis(160, 100, 300) })).toBe('FAIL'); // under 60% of the floor
    expect(verdict({ redis: redis(140, 100, 200) })).toBe('FAIL'); // under 1.5x BullMQ
    expect(verdict({ redis: { ...(redis(160, 100, 250) as object), bull: { error: 'x' } } })).toBe(
      'not measured',
    );
  });
});
