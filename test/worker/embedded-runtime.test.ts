import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defaultRegistry,
  defineNode,
  ExecutionTerminalError,
  parseFlow,
  reapStale,
  runStep,
  UnknownExecutionError,
} from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryExecutionStore } from '../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import type { NodeRegistry } from '../../src/nodes/node-registry.js';

/** The whole runtime in one process: memory store, SQLite-backed local queue, one worker. */
function runtime(registry?: NodeRegistry) {
  const store = new MemoryExecutionStore();
  const flows = new MemoryFlowStore();
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    concurrency: 4,
    pollBlockMs: 20,
    leaseTtlMs: 2000,
    ...(registry ? { registry } : {}),
  });
  const client = new PlaitaClient({ store, flows, queue, ...(registry ? { registry } : {}) });
  worker.start();
  const stop = async () => {
    await worker.stop();
    await queue.close();
  };
  return { store, flows, queue, worker, client, stop };
}

let current: ReturnType<typeof runtime> | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

const approval = JSON.parse(
  readFileSync(new URL('../../examples/approval.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const approvalInput = {
  id: 'EXP-7',
  requester: 'Bob',
  amount: 120.5,
  reason: 'conference travel',
  approvers: ['alice@example.com'],
};

describe('embedded runtime (memory store + local queue)', () => {
  it('keeps an event sent before the worker picked the execution up, in the inbox', async () => {
    current = runtime();
    await current.worker.stop();
    const flow = {
      nodes: [
        { type: 'start', id: 's', next: 'w' },
        { type: 'event', id: 'w', event_type: 'go', event_filter: { 'order.id': 7 }, next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.w.event_data.event_data.order' },
      ],
    };
    const id = await current.client.start(flow, {});
    await current.client.sendEvent(id, {
      type: 'go',
      data: { order: { id: 8 } },
      eventId: 'other',
    });
    await current.client.sendEvent(id, { type: 'go', data: { order: { id: 7 } }, eventId: 'mine' });
    // Handle the event messages first: the execution is still queued, so both go to the inbox.
    const [run, ...events] = await current.queue.receive('test', { max: 10, blockMs: 0 });
    await current.queue.ack(run!);
    for (const e of events)
      await current.queue.enqueue(e.parsed.ok ? e.parsed.message : (undefined as never));
    for (const e of events) await current.queue.ack(e);
    // Two messages of one execution at once: one waits for the lease (requeued), then lands too.
    for (let i = 0; i < 50 && (await current.client.get(id))!.inbox.length < 2; i++)
      await current.worker.tick(100);
    expect((await current.client.get(id))?.inbox.map((e) => e.eventId).sort()).toEqual([
      'mine',
      'other',
    ]);
    await current.queue.enqueue({ v: 1, kind: 'run', executionId: id, tenantId: 'default' });
    await current.worker.tick(0);
    const done = await current.client.get(id);
    expect(done).toMatchObject({ status: 'completed', result: { id: 7 } });
    expect(done?.inbox.map((e) => e.eventId)).toEqual(['other']);
  });

  it('a repeated dedupKey returns the first execution and starts nothing', async () => {
    current = runtime();
    const flow = readFileSync(new URL('../../examples/echo.json', import.meta.url), 'utf8');
    const first = await current.client.start(
      parseFlow(flow),
      { name: 'Ada' },
      { dedupKey: 'order-42' },
    );
    const again = await current.client.start(
      parseFlow(flow),
      { name: 'Bob' },
      { dedupKey: 'order-42' },
    );
    expect(again).toBe(first);
    const done = await current.client.waitFor(first, { timeoutMs: 5000, until: 'terminal' });
    expect(done.result).toBe('Ada');
    expect((await current.client.list()).items.map((i) => i.executionId)).toEqual([first]);
  });

  it('an event wait times out through its durable timer (the node timeout) and the flow goes on', async () => {
    current = runtime();
    const id = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'w' },
          { type: 'event', id: 'w', event_type: 'never', timeout: 200, next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.w.status' },
        ],
      },
      {},
    );
    expect((await current.client.waitFor(id, { timeoutMs: 5000 })).waiting?.dueAt).not.toBeNull();
    const done = await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
    expect(done).toMatchObject({ status: 'completed', result: 'timeout' });
  });

  it('reap re-enqueues a stale running execution; it continues from its checkpoint', async () => {
    let calls = 0;
    const registry = defaultRegistry
      .copy()
      .register(defineNode({ type: 'once', run: () => ++calls }));
    current = runtime(registry);
    await current.worker.stop(); // no worker: we play a worker that died after its first checkpoint
    const flow = parseFlow(
      {
        flow_id: 'reaped',
        nodes: [
          { type: 'start', id: 's', next: 'one' },
          { type: 'once', id: 'one', next: 'two' },
          { type: 'assignment', id: 'two', output: '$F.add($NODE.one, 1)', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.two' },
        ],
      },
      { registry },
    );
    const id = await current.client.start(flow, {});
    const [message] = await current.queue.receive('dead-worker', { max: 1, blockMs: 0 });
    await current.queue.ack(message!); // the message is gone with the worker
    const queued = (await current.store.load(id))!;
    const first = await runStep(flow, { input: {}, executionId: id });
    if (first.status !== 'advanced') throw new Error(`unexpected ${first.status}`);
    await current.store.save({
      ...queued,
      status: 'running',
      context: first.context,
      version: queued.version + 1,
    });
    expect(calls).toBe(1);
    expect(await reapStale(current.store, current.queue, { idleMs: 60_000 })).toEqual([]); // not stale yet
    expect(await reapStale(current.store, current.queue, { idleMs: 0 })).toEqual([id]);
    await current.worker.tick(100);
    const done = await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
    expect(done).toMatchObject({ status: 'completed', result: 2 });
    expect(calls).toBe(1); // progress was kept: `one` did not run again
  });

  it('runs a flow to completion', async () => {
    current = runtime();
    const id = await current.client.start(
      parseFlow(readFileSync(new URL('../../examples/echo.json', import.meta.url), 'utf8')),
      { name: 'Ada' },
    );
    const state = await current.client.waitFor(id, { timeoutMs: 5000 });
    expect(state).toMatchObject({ status: 'completed', result: 'Ada' });
  });

  it('suspends on approval and an event resumes it to the end', async () => {
    current = runtime();
    const id = await current.client.start(approval, approvalInput);
    const suspended = await current.client.waitFor(id, { timeoutMs: 5000 });
    expect(suspended.status).toBe('suspended');
    expect(suspended.waiting).toMatchObject({ nodeId: 'approve', eventType: 'approval_decision' });
    await current.client.sendEvent(id, {
      type: 'approval_decision',
      data: { final_decision: 'approve', approval_details: [{ approver_id: 'alice@example.com' }] },
      eventId: 'e1',
    });
    const done = await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
    expect(done).toMatchObject({
      status: 'completed',
      result: { status: 'approved', expense: 'EXP-7', decidedBy: 'alice@example.com' },
    });
    await expect(
      current.client.sendEvent(id, { type: 'approval_decision', data: {} }),
    ).rejects.toBeInstanceOf(ExecutionTerminalError);
    await expect(current.client.sendEvent('nope', { type: 'x' })).rejects.toBeInstanceOf(
      UnknownExecutionError,
    );
  });

  it('keeps an event that arrives before the suspend and applies a repeated event id once', async () => {
    const gate = { open: false };
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'slow',
        run: async () => {
          while (!gate.open) await new Promise((r) => setTimeout(r, 10));
          return 1;
        },
      }),
    );
    current = runtime(registry);
    const flow = {
      flow_id: 'early',
      nodes: [
        { type: 'start', id: 's', next: 'slow' },
        { type: 'slow', id: 'slow', next: 'wait' },
        { type: 'event', id: 'wait', event_type: 'go', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.wait.event_data.event_data' },
      ],
    };
    const id = await current.client.start(flow, {});
    await current.client.sendEvent(id, { type: 'go', data: { n: 1 }, eventId: 'dup' });
    await current.client.sendEvent(id, { type: 'go', data: { n: 2 }, eventId: 'dup' });
    await new Promise((r) => setTimeout(r, 300));
    gate.open = true;
    const done = await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
    expect(done).toMatchObject({ status: 'completed', result: { n: 1 } });
    expect(done.appliedEventIds).toEqual(['dup']);
  });

  it('a node returning a function ends state_not_serializable after one delivery, side effect once', async () => {
    let calls = 0;
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'leaky',
        run: () => {
          calls++;
          return { client: () => 1 };
        },
      }),
    );
    current = runtime(registry);
    const id = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'l' },
          { type: 'leaky', id: 'l', next: 'e' },
          { type: 'end', id: 'e', output: 1 },
        ],
      },
      {},
    );
    const state = await current.client.waitFor(id, { timeoutMs: 5000 });
    expect(state.status).toBe('error');
    expect(state.error).toMatchObject({
      code: 'state_not_serializable',
      node: 'l',
      retryable: false,
    });
    expect(JSON.stringify(state.error)).toContain('$NODE.l.client');
    expect(calls).toBe(1);
    await expect
      .poll(
        async () => {
          const stats = await current!.queue.stats();
          return stats.inFlight + stats.ready;
        },
        { timeout: 5000 },
      )
      .toBe(0);
  });

  it('a node returning a Date and a Set completes with types intact', async () => {
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'rich',
        run: () => ({ at: new Date('2026-01-01T00:00:00Z'), tags: new Set(['a', 'b']) }),
      }),
    );
    current = runtime(registry);
    const id = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'r' },
          { type: 'rich', id: 'r', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.r' },
        ],
      },
      {},
    );
    const state = await current.client.waitFor(id, { timeoutMs: 5000 });
    const result = state.result as { at: Date; tags: Set<string> };
    expect(state.status).toBe('completed');
    expect(result.at).toBeInstanceOf(Date);
    expect(result.tags).toEqual(new Set(['a', 'b']));
  });

  it('a delay node fires its durable timer', async () => {
    current = runtime();
    const id = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'd' },
          { type: 'delay', id: 'd', delay_seconds: 0.2, next: 'e' },
          {
            type: 'end',
            id: 'e',
            output: {
              trigger: '$NODE.d.event_data.event_data.trigger_type',
              delayMs: '$NODE.d.event_data.event_data.delay_ms',
            },
          },
        ],
      },
      {},
    );
    const waiting = await current.client.waitFor(id, { timeoutMs: 5000 });
    expect(waiting.status).toBe('suspended');
    const done = await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
    // delay_ms comes from the delay type's own declaration (NodeWait.timerData), not the worker.
    expect(done).toMatchObject({
      status: 'completed',
      result: { trigger: 'delay_completed', delayMs: 200 },
    });
  });

  it('cancels a suspended execution, and retries an execution in error', async () => {
    current = runtime();
    const id = await current.client.start(approval, approvalInput);
    await current.client.waitFor(id, { timeoutMs: 5000 });
    await current.client.cancel(id);
    expect((await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' })).status).toBe(
      'cancelled',
    );

    const failing = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'a' },
          { type: 'assignment', id: 'a', output: '$F.div(1, $INPUT.d)', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.a' },
        ],
      },
      { d: 0 },
    );
    const errored = await current.client.waitFor(failing, { timeoutMs: 5000 });
    expect(errored.error).toMatchObject({ code: -9527, node: 'a' });
    await current.client.retry(failing);
    await new Promise((r) => setTimeout(r, 300));
    const again = await current.client.waitFor(failing, { timeoutMs: 5000 });
    expect(again.status).toBe('error');
    expect(again.manualRetries).toBe(1);
  });

  it('a cancel that lost the race against a node failure does not cancel the later retry', async () => {
    let calls = 0;
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'flaky',
        run: () => {
          if (++calls === 1) throw new Error('first call fails');
          return { ok: calls };
        },
      }),
    );
    current = runtime(registry);
    const id = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'f' },
          { type: 'flaky', id: 'f', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.f' },
        ],
      },
      {},
    );
    expect((await current.client.waitFor(id, { timeoutMs: 5000 })).status).toBe('error');
    // The operator's cancel saw it running; its request landed after the failure was written.
    await current.store.requestCancel(id, { tenantId: 'default' });
    await current.client.retry(id);
    await new Promise((r) => setTimeout(r, 300));
    const retried = await current.client.waitFor(id, { timeoutMs: 5000, until: 'terminal' });
    expect(retried.status).toBe('completed');
    expect(retried.result).toEqual({ ok: 2 });
  });

  it('cancels a running execution: the node signal fires', async () => {
    let aborted = false;
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'forever',
        run: (ctx) =>
          new Promise((_r, reject) =>
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('stopped'));
            }),
          ),
      }),
    );
    current = runtime(registry);
    const id = await current.client.start(
      {
        nodes: [
          { type: 'start', id: 's', next: 'f' },
          { type: 'forever', id: 'f', next: 'e' },
          { type: 'end', id: 'e', output: 1 },
        ],
      },
      {},
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await current.client.get(id))?.status).toBe('running');
    await current.client.cancel(id);
    const state = await current.client.waitFor(id, { timeoutMs: 5000 });
    expect(state.status).toBe('cancelled');
    expect(aborted).toBe(true);
  });
});
