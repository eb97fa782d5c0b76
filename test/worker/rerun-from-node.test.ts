import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { rerunDryRun, rerunExecution } from '../../src/control/rerun-execution.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { SqliteControlStore } from '../../src/backends/sqlite/sqlite-control-store.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../src/backends/sqlite/sqlite-flow-store.js';
import { defaultRegistry, defineNode } from '../../src/index.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** Runs of the `count` node type, by node id: a plugin node, so effectful (host code). */
const runs = new Map<string, number>();
const registry = defaultRegistry.copy().register(
  defineNode({
    type: 'count',
    run: (ctx) => {
      const id = ctx.def.id;
      runs.set(id, (runs.get(id) ?? 0) + 1);
      return { n: ctx.evaluate('$INPUT.n'), by: id };
    },
  }),
);

/** start → first (count) → second (count) → flaky (fails while $INPUT.d is 0) → third (count) → end. */
const flow = {
  flow_id: 'rerun-worker',
  nodes: [
    { type: 'start', id: 'start', next: 'first' },
    { type: 'count', id: 'first', next: 'second' },
    { type: 'count', id: 'second', next: 'flaky' },
    {
      type: 'assignment',
      id: 'flaky',
      output: { ok: '$F.div(1, $INPUT.d)' },
      next: 'third',
    },
    { type: 'count', id: 'third', next: 'end' },
    {
      type: 'end',
      id: 'end',
      output: { first: '$NODE.first', second: '$NODE.second', third: '$NODE.third' },
    },
  ],
};

function onSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-rerun-'));
  const path = join(dir, 'plaita.db');
  const store = new SqliteExecutionStore({ path });
  const flows = new SqliteFlowStore({ path });
  const control = new SqliteControlStore({ path });
  const queue = new LocalQueue({ path: join(dir, 'queue.db') }, { visibilityTimeoutMs: 2000 });
  const worker = new FlowWorker({ store, flows, queue, registry, pollBlockMs: 20, metrics: null });
  const client = new PlaitaClient({ store, flows, queue, registry });
  worker.start();
  cleanup = async () => {
    await worker.stop();
    await queue.close();
    await store.close();
    await flows.close();
    await control.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { store, flows, control, client };
}

describe('a rerun through a real worker', () => {
  it('runs from fromNode on: the nodes before it are not run again, and it completes', async () => {
    runs.clear();
    const services = { ...onSqlite(), registry };
    const id = await services.client.start(flow, { n: 1, d: 0 });
    const failed = await services.client.waitFor(id, { timeoutMs: 10_000 });
    expect(failed).toMatchObject({ status: 'error', error: { node: 'flaky' } });
    expect(Object.fromEntries(runs)).toEqual({ first: 1, second: 1 });

    // What runs again: the failed node, nothing after it ran.
    expect(await rerunDryRun(services, failed, { fromNode: 'second' })).toEqual([
      { nodeId: 'second', type: 'count', effectful: true },
      { nodeId: 'flaky', type: 'assignment', effectful: false },
    ]);

    const rerunId = await rerunExecution(services, failed, {
      fromNode: 'flaky',
      input: { n: 2, d: 1 },
    });
    const done = await services.client.waitFor(rerunId, { timeoutMs: 10_000 });
    expect(done).toMatchObject({
      status: 'completed',
      flowHash: failed.flowHash,
      result: { first: { n: 1, by: 'first' }, second: { n: 1, by: 'second' }, third: { n: 2 } },
    });
    expect(Object.fromEntries(runs)).toEqual({ first: 1, second: 1, third: 1 });
    expect(Object.keys(done.timings)).toEqual(['flaky', 'third', 'end']);
    const meta = await services.control.get({
      collection: 'execution_meta',
      tenant: 'default',
      id: rerunId,
    });
    expect(meta?.doc).toEqual({ rerunOf: id, fromNode: 'flaky' });

    // A rerun of the rerun, from a node that ran in it, keeps what the first one kept.
    const again = await rerunExecution(services, done, { fromNode: 'third' });
    expect(await services.client.waitFor(again, { timeoutMs: 10_000 })).toMatchObject({
      status: 'completed',
      result: { first: { n: 1 }, third: { n: 2 } },
    });
    expect(runs.get('third')).toBe(2);
    expect(runs.get('first')).toBe(1);
  });
});
