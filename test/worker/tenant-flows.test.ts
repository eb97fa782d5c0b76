import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { FlowDefinitionError } from '../../src/errors/flow-definition-errors.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../src/backends/sqlite/sqlite-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * Issue "Flows are shared across tenants": tenant mallory publishing her own `flow_id: shared`
 * made tenant alice's `plaita start shared` pin mallory's version. The embedded runtime on one
 * SQLite file (executions and flows), a local queue and one worker serving every tenant.
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'plaita-tenant-flows-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runtime(file: string) {
  const path = join(dir, file);
  const store = new SqliteExecutionStore({ path });
  const flows = new SqliteFlowStore({ path });
  const queue = new LocalQueue({ path: join(dir, `${file}.queue`) }, { visibilityTimeoutMs: 2000 });
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    concurrency: 2,
    pollBlockMs: 20,
    leaseTtlMs: 2000,
  });
  const as = (tenantId: string): PlaitaClient =>
    new PlaitaClient({ store, flows, queue, tenantId });
  worker.start();
  const stop = async (): Promise<void> => {
    await worker.stop();
    await Promise.all([queue.close(), flows.close(), store.close()]);
  };
  return { store, flows, queue, worker, as, stop };
}

let current: ReturnType<typeof runtime> | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

/** `shared` as one tenant publishes it: its result names the publisher. */
const shared = (version: string, by: string): Record<string, unknown> => ({
  flow_id: 'shared',
  version,
  nodes: [
    { type: 'start', id: 's', next: 'e' },
    { type: 'end', id: 'e', output: { by, version } },
  ],
});

/** A flow of alice's that runs `shared` through a `reference` node (latest version). */
const caller = {
  flow_id: 'caller',
  version: '1',
  nodes: [
    { type: 'start', id: 's', next: 'r' },
    { type: 'reference', id: 'r', flow_id: 'shared', next: 'e' },
    { type: 'end', id: 'e', output: '$NODE.r' },
  ],
};

async function result(client: PlaitaClient, executionId: string): Promise<unknown> {
  const done = await client.waitFor(executionId, { until: 'terminal', timeoutMs: 10_000 });
  expect(done.status, JSON.stringify(done.error)).toBe('completed');
  return done.result;
}

describe('flows belong to their tenant (embedded runtime on SQLite)', () => {
  it("alice's start of `shared` runs alice's definition, whatever mallory publishes", async () => {
    current = runtime('tenants.db');
    const [alice, mallory] = [current.as('alice'), current.as('mallory')];
    // Publishing = starting from the document, as `plaita start <file>` does.
    await result(alice, await alice.start(shared('1', 'alice')));
    await result(mallory, await mallory.start(shared('2', 'mallory'))); // the newest `shared`

    const byId = await alice.start('shared');
    expect(await result(alice, byId)).toEqual({ by: 'alice', version: '1' });
    const state = await alice.get(byId);
    expect(state).toMatchObject({ tenantId: 'alice', flowId: 'shared', flowVersion: '1' });
    expect(
      (await current.flows.getByHash(state!.flowHash!, { tenantId: 'alice' }))?.document,
    ).toEqual(shared('1', 'alice'));
    // The same flowId + version in another tenant is no conflict, and changes nothing for alice.
    await result(mallory, await mallory.start(shared('1', 'mallory')));
    expect(await result(alice, await alice.start('shared', {}, { version: '1' }))).toEqual({
      by: 'alice',
      version: '1',
    });
    await expect(alice.start('shared', {}, { version: '2' })).rejects.toBeInstanceOf(
      FlowDefinitionError,
    );
    expect(await result(mallory, await mallory.start('shared', {}, { version: '2' }))).toEqual({
      by: 'mallory',
      version: '2',
    });
    expect(await result(alice, await alice.start('shared'))).toEqual({ by: 'alice', version: '1' });
  });

  it("a `reference` node resolves within the execution's tenant", async () => {
    current = runtime('reference.db');
    const [alice, mallory] = [current.as('alice'), current.as('mallory')];
    await current.flows.put(shared('1', 'alice'), { tenantId: 'alice' });
    await current.flows.put(shared('7', 'mallory'), { tenantId: 'mallory' });
    expect(await result(alice, await alice.start(caller))).toEqual({ by: 'alice', version: '1' });
    expect(await result(mallory, await mallory.start(caller))).toEqual({
      by: 'mallory',
      version: '7',
    });
    // A tenant without its own `shared` finds none, not someone else's.
    const bob = current.as('bob');
    const failed = await bob.waitFor(await bob.start(caller), {
      until: 'terminal',
      timeoutMs: 10_000,
    });
    expect(failed.status).toBe('error');
    expect(failed.error?.message).toMatch(/flow 'shared' was not found/);
  });

  it("the worker runs an execution only with a definition of the execution's own tenant", async () => {
    current = runtime('pinned.db');
    const stored = await current.flows.put(shared('1', 'mallory'), { tenantId: 'mallory' });
    // An execution of alice pinning mallory's hash, written directly (no client can do this):
    // knowing a hash grants nothing.
    const executionId = 'alice-pins-mallory';
    await current.store.save(
      newExecutionState({
        executionId,
        tenantId: 'alice',
        flowId: 'shared',
        flowHash: stored.flowHash,
        context: { $INPUT: {} },
      }),
    );
    await current.queue.enqueue({ v: 1, kind: 'run', executionId, tenantId: 'alice' });
    const done = await current.as('alice').waitFor(executionId, {
      until: 'terminal',
      timeoutMs: 10_000,
    });
    expect(done.status).toBe('error');
    expect(done.error?.code).toBe('flow_definition_missing');
    expect(done.result).toBeNull();
  });
});

describe('two tenants using one execution id', () => {
  it('each gets its own timer: both delays fire, and cancelling one leaves the other alone', async () => {
    const { as, stop } = runtime('timers.db');
    try {
      const flow = {
        flow_id: 'wait-a-bit',
        nodes: [
          { type: 'start', id: 's', next: 'd' },
          { type: 'delay', id: 'd', delay_seconds: 0.3, next: 'e' },
          { type: 'end', id: 'e', output: 'woke' },
        ],
      };
      const [alice, bob, carol] = [as('alice'), as('bob'), as('carol')];
      for (const client of [alice, bob, carol])
        await client.start(flow, {}, { executionId: 'order-1' });
      for (const client of [alice, bob, carol])
        expect((await client.waitFor('order-1', { timeoutMs: 10_000 })).status).toBe('suspended');
      // Carol's cancel withdraws carol's timer only.
      await carol.cancel('order-1');
      for (const client of [alice, bob]) {
        const done = await client.waitFor('order-1', { timeoutMs: 10_000, until: 'terminal' });
        expect(done.status).toBe('completed');
        expect(done.result).toBe('woke');
      }
      expect(
        (await carol.waitFor('order-1', { timeoutMs: 10_000, until: 'terminal' })).status,
      ).toBe('cancelled');
    } finally {
      await stop();
    }
  });
});
