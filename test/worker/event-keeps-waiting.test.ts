import { afterEach, describe, expect, it } from 'vitest';
import { createDefaultRegistry, defineNode } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

/**
 * docs/flow-format.md §3.17: an event may leave a suspended node pending (a plugin gathering several, a
 * quorum). The durable worker must keep the execution waiting — not run on past a node that
 * is still pending, which the engine refuses, ending the execution in error.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface QuorumState extends Record<string, unknown> {
  votes: number;
}

describe('an event that leaves its node pending', () => {
  it('keeps the execution suspended until the node has what it waits for', async () => {
    const registry = createDefaultRegistry();
    registry.register(
      defineNode({
        type: 'team.quorum',
        suspending: true,
        run: () => ({
          event_type: 'vote',
          event_filter: {},
          is_async: true,
          event_id: 'quorum',
          status: 'pending',
          votes: 0,
        }),
        resume: (_ctx, type, _data, state) => {
          const current = state as QuorumState;
          if (type !== 'event') return { ...current, status: type };
          const votes = current.votes + 1;
          return votes >= 2 ? { ...current, votes, status: 'completed' } : { ...current, votes };
        },
      }),
    );
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' });
    closers.push(() => queue.close());
    const client = new PlaitaClient({ store, flows, queue, registry });
    const worker = new FlowWorker({
      store,
      flows,
      queue,
      registry,
      pollBlockMs: 20,
      metrics: null,
    });
    worker.start();
    closers.push(() => worker.stop());

    const id = await client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'q' },
          { type: 'team.quorum', id: 'q', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.q.votes' },
        ],
      },
      {},
    );
    expect((await client.waitFor(id, { timeoutMs: 10_000, until: 'settled' })).status).toBe(
      'suspended',
    );
    await client.sendEvent(id, { type: 'vote', data: { who: 'ann' }, eventId: 'ann' });
    await expect
      .poll(async () => ((await client.get(id))?.context.$NODE as { q?: QuorumState }).q?.votes, {
        timeout: 10_000,
      })
      .toBe(1);
    const between = await client.get(id);
    expect(between?.status).toBe('suspended');
    expect(between?.waiting).toMatchObject({ nodeId: 'q', eventType: 'vote' });

    await client.sendEvent(id, { type: 'vote', data: { who: 'ben' }, eventId: 'ben' });
    const done = await client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(done.status).toBe('completed');
    expect(done.result).toBe(2);
  });
});
