import { describe, expect, it } from 'vitest';
import { defaultRegistry, defineNode, runStep, type NodeRegistry } from '../../src/index.js';

/**
 * A suspension's `Waiting` says how it is woken — `timeoutMs` and which `timer` fires at its
 * due time — from the node's own `timeout` or what its type declares (`NodeType.wait`), so the
 * durable worker schedules timers without knowing any type's fields. Plugins declare theirs.
 */
const events = { subscribe: () => 'sub-1' };

async function waitingOf(node: Record<string, unknown>, registry?: NodeRegistry) {
  const flow = {
    flow_id: 'w',
    nodes: [
      { type: 'start', id: 'start', next: 'n' },
      { id: 'n', next: 'end', ...node },
      { type: 'end', id: 'end' },
    ],
  };
  const outcome = await runStep(flow, { input: {} }, { events, ...(registry ? { registry } : {}) });
  if (outcome.status !== 'suspended') throw new Error(`expected suspended, got ${outcome.status}`);
  const { timeoutMs, timer, dueAt, timerData } = outcome.waiting;
  return { timeoutMs, timer, dueAt, ...(timerData ? { timerData } : {}) };
}

describe('Waiting from NodeType.wait', () => {
  it('http_callback waits callback_timeout_minutes, then times out', async () => {
    expect(await waitingOf({ type: 'http_callback', callback_timeout_minutes: 5 })).toEqual({
      timeoutMs: 300_000,
      timer: 'timeout',
      dueAt: null,
    });
  });

  it('redis_queue waits for ever unless timeout_seconds is set', async () => {
    const base = { type: 'redis_queue', queue_name: 'q' };
    expect((await waitingOf(base)).timer).toBeNull();
    expect(await waitingOf({ ...base, timeout_seconds: 30 })).toMatchObject({
      timeoutMs: 30_000,
      timer: 'timeout',
    });
  });

  it('a delay fires a delay at its due time', async () => {
    const waiting = await waitingOf({ type: 'delay', delay_seconds: 2 });
    expect(waiting.timer).toBe('delay');
    expect(waiting.timerData).toEqual({ delay_ms: 2000 });
    expect(waiting.dueAt).toBeGreaterThan(Date.now());
  });

  it("the node's own timeout wins over the type's", async () => {
    expect(
      await waitingOf({ type: 'http_callback', callback_timeout_minutes: 5, timeout: 'PT10S' }),
    ).toMatchObject({ timeoutMs: 10_000, timer: 'timeout' });
  });

  it('a plugin suspending type declares its own wait', async () => {
    const registry = defaultRegistry.copy();
    registry.register(
      defineNode({
        type: 'ticket',
        suspending: true,
        wait: () => ({ timeoutMs: 42_000 }),
        run: () => ({ status: 'pending', event_type: 'ticket_closed' }),
      }),
    );
    expect(await waitingOf({ type: 'ticket' }, registry)).toEqual({
      timeoutMs: 42_000,
      timer: 'timeout',
      dueAt: null,
    });
  });
});
