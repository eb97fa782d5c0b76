import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRegistry, defineNode, parseFlow, type NodeType } from '../../src/index.js';
import { Stepper } from '../../src/engine/stepper.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../src/backends/sqlite/sqlite-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

// A plugin node is host code: what it reads through ctx.input, ctx.get or ctx.evaluate is the
// execution's own value, and it may change it in place. The original engine saved the whole
// context after every node, so such a change was durable; here saves are incremental, and a
// change made in place must not stay in the live run only (a resumed run, a GET, a replay
// would see the value from before it).

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

type Items = { items: string[] };

const readers: Record<string, (ctx: Parameters<NodeType['run']>[0]) => unknown> = {
  'ctx.input': (ctx) => ctx.input,
  'ctx.get': (ctx) => ctx.get('$INPUT'),
  'ctx.evaluate': (ctx) => ctx.evaluate('$INPUT'),
};

async function runOnSqlite(read: (ctx: Parameters<NodeType['run']>[0]) => unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-plugin-mutation-'));
  const path = join(dir, 'plaita.db');
  const store = new SqliteExecutionStore({ path });
  const flows = new SqliteFlowStore({ path });
  const queue = new LocalQueue({ path: join(dir, 'queue.db') }, { visibilityTimeoutMs: 2000 });
  const registry = defaultRegistry.copy().register(
    defineNode({
      type: 'append',
      run: async (ctx) => {
        ((await read(ctx)) as Items).items.push('added by a plugin');
        const nodes = ctx.get('$NODE') as Record<string, { list: number[] }>;
        nodes.a!.list.push(2);
        return 'appended';
      },
    }),
  );
  const worker = new FlowWorker({ store, flows, queue, registry, pollBlockMs: 20 });
  const client = new PlaitaClient({ store, flows, queue, registry });
  worker.start();
  cleanup = async () => {
    await worker.stop();
    await queue.close();
    await store.close();
    await flows.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const flow = {
    nodes: [
      { type: 'start', id: 's', next: 'a' },
      { type: 'assignment', id: 'a', output: { list: [1] }, next: 'm' },
      { type: 'append', id: 'm', next: 'w' },
      { type: 'event', id: 'w', event_type: 'go', next: 'e' },
      { type: 'end', id: 'e', output: { input: '$INPUT', a: '$NODE.a' } },
    ],
  };
  const id = await client.start(flow, { items: ['given'] });
  const suspended = await client.waitFor(id, { timeoutMs: 5000 });
  return { id, path, client, suspended };
}

describe('a plugin node that changes a value it read, in place', () => {
  it.each(Object.entries(readers))(
    'through %s: the change is in the stored checkpoint, read back from the file',
    async (_, read) => {
      const { id, path, client, suspended } = await runOnSqlite(read);
      expect(suspended.status).toBe('suspended');
      const reopened = new SqliteExecutionStore({ path });
      try {
        const stored = await reopened.load(id);
        expect(stored?.context.$INPUT).toEqual({ items: ['given', 'added by a plugin'] });
        expect((stored?.context.$NODE as Record<string, unknown>).a).toEqual({ list: [1, 2] });
      } finally {
        await reopened.close();
      }
      await client.sendEvent(id, { type: 'go', data: {} });
      const done = await client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
      expect(done.result).toEqual({
        input: { items: ['given', 'added by a plugin'] },
        a: { list: [1, 2] },
      });
    },
  );
});

describe('the engine, for a plugin node that reads a value', () => {
  const registry = defaultRegistry
    .copy()
    .register(
      defineNode({
        type: 'append',
        run: (ctx) => {
          (ctx.input as Items).items.push('added');
          return 'appended';
        },
      }),
    )
    // Vouches that it changes nothing it reads: its steps stay incremental.
    .register(defineNode({ type: 'peek', leavesValuesAlone: true, run: (ctx) => ctx.input }));
  const flow = parseFlow(
    {
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: 1, next: 'p' },
        { type: 'peek', id: 'p', next: 'm' },
        { type: 'append', id: 'm', next: 'e' },
        { type: 'end', id: 'e', output: '$INPUT' },
      ],
    },
    { registry },
  );

  it('leaves the checkpoint before it as it was, and says the step may have changed anything', async () => {
    const stepper = new Stepper(
      flow,
      { input: { items: ['given'] }, executionId: 'x' },
      { registry },
    );
    const steps: Array<{ changed: string[] | null; input: unknown }> = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await stepper.step(); // s and a; p; m
      if (outcome.status === 'failed') throw outcome.error;
      steps.push({ changed: outcome.changedNodes, input: outcome.context.$INPUT });
    }
    const ended = await stepper.step();
    stepper.dispose();
    expect(steps.map((s) => s.changed)).toEqual([['s', 'a'], ['p'], null]);
    expect(steps.map((s) => s.input)).toEqual([
      { items: ['given'] },
      { items: ['given'] },
      { items: ['given', 'added'] },
    ]);
    expect(ended).toMatchObject({ status: 'completed', result: { items: ['given', 'added'] } });
  });
});

describe('a plugin node inside a child flow', () => {
  const registry = defaultRegistry.copy().register(
    defineNode({
      type: 'append',
      run: async (ctx) => {
        const target = ctx.def.fallback ? await ctx.evaluate('$NODE.a') : ctx.input;
        (target as { list: number[] }).list.push(2);
        return 'appended';
      },
    }),
  );
  const parent = (fallback: boolean) =>
    parseFlow(
      {
        nodes: [
          { type: 'start', id: 's', next: 'a' },
          { type: 'assignment', id: 'a', output: { list: [1] }, next: 'c' },
          {
            type: 'child',
            id: 'c',
            input: '$NODE.a',
            childFlow: {
              nodes: [
                { type: 'start', id: 's', next: 'm' },
                { type: 'append', id: 'm', fallback, next: 'e' },
                { type: 'end', id: 'e', output: '$INPUT' },
              ],
            },
            next: 'e',
          },
          { type: 'end', id: 'e', output: '$NODE.a' },
        ],
      },
      { registry },
    );

  async function steps(fallback: boolean) {
    const stepper = new Stepper(parent(fallback), { input: {}, executionId: 'p' }, { registry });
    const seen: Array<{ changed: string[] | null; a: unknown }> = [];
    for (;;) {
      const outcome = await stepper.step();
      if (outcome.status === 'failed') throw outcome.error;
      seen.push({
        changed: outcome.changedNodes,
        a: (outcome.context.$NODE as Items & Record<string, unknown>).a,
      });
      if (outcome.status === 'completed') {
        stepper.dispose();
        return { seen, result: outcome.result };
      }
    }
  }

  it('changes its own copy of the input it was given: the parent’s value and checkpoints stay', async () => {
    const { seen, result } = await steps(false);
    expect(seen.map((s) => s.a)).toEqual([{ list: [1] }, { list: [1] }, { list: [1] }]);
    expect(result).toEqual({ list: [1] });
  });

  it('a parent value reached by fallback and changed in place is stored whole; the checkpoint before stays', async () => {
    const { seen, result } = await steps(true);
    expect(seen.map((s) => s.a)).toEqual([{ list: [1] }, { list: [1, 2] }, { list: [1, 2] }]);
    expect(seen[1]!.changed).toBeNull();
    expect(result).toEqual({ list: [1, 2] });
  });
});

describe('a plugin suspending node whose resume changes its pending state in place', () => {
  const registry = defaultRegistry.copy().register(
    defineNode({
      type: 'ticket',
      suspending: true,
      run: () => ({ status: 'pending', event_type: 'closed', history: ['opened'] }),
      resume: (_ctx, _type, _data, state) => {
        (state.history as string[]).push('closed');
        return { ...state, status: 'done' };
      },
    }),
  );
  const flow = parseFlow(
    {
      nodes: [
        { type: 'start', id: 's', next: 't' },
        { type: 'ticket', id: 't', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.t.history' },
      ],
    },
    { registry },
  );

  it('leaves the suspended checkpoint as it was; the resumed state is stored whole', async () => {
    const stepper = new Stepper(
      flow,
      { input: {}, executionId: 'r' },
      { registry, events: { subscribe: () => 'subscription-1' } },
    );
    const suspended = await stepper.step();
    expect(suspended.status).toBe('suspended');
    const resumed = await stepper.step({ type: 'event', data: {} });
    let outcome = resumed;
    while (outcome.status === 'advanced') outcome = await stepper.step();
    stepper.dispose();
    if (suspended.status === 'failed' || outcome.status !== 'completed')
      throw new Error(`ended ${outcome.status}`);
    expect((suspended.context.$NODE as { t: { history: string[] } }).t.history).toEqual(['opened']);
    expect(outcome.result).toEqual(['opened', 'closed']);
  });
});
