import { describe, expect, it } from 'vitest';
import {
  defaultRegistry,
  defineNode,
  MemoryExecutionStore,
  parseFlow,
  RetryableError,
  runFlow,
  TerminalError,
} from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { shouldRetry } from '../../src/engine/retry-policy.js';
import type { HandlerDef } from '../../src/flow/node-type.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { MemoryFlowStore } from '../../src/backends/memory/memory-flow-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';

// docs/public-surface.md: node authors throw TerminalError (never retried) or RetryableError({retryAfterMs})
// (retried after that delay instead of the handler's own).

function counting(type: string, fail: (attempt: number) => Error | null) {
  const calls: number[] = [];
  const node = defineNode({
    type,
    run: () => {
      calls.push(Date.now());
      const error = fail(calls.length);
      if (error) throw error;
      return calls.length;
    },
  });
  return { node, calls };
}

function flowOf(type: string, errorHandler: Record<string, unknown>) {
  return {
    flow_id: `retry-${type}`,
    nodes: [
      { type: 'start', id: 's', next: 'n' },
      { type, id: 'n', errorHandler, next: 'e' },
      { type: 'end', id: 'e', output: '$NODE.n' },
    ],
  };
}

const policy = (retryTimes: number, retryDelayMs: number | null = null): HandlerDef => ({
  strategy: 'abort',
  defaultValue: null,
  code: null,
  message: null,
  retryTimes,
  retryDelayMs,
  retryBackoff: 1,
});

describe('shouldRetry', () => {
  const table: Array<[string, unknown, HandlerDef, number, { retry: boolean; delayMs: number }]> = [
    [
      'a plain error within retryTimes',
      new Error('x'),
      policy(3, 10),
      1,
      { retry: true, delayMs: 10 },
    ],
    [
      'a plain error past retryTimes',
      new Error('x'),
      policy(3, 10),
      4,
      { retry: false, delayMs: 0 },
    ],
    ['TerminalError', new TerminalError('no'), policy(3, 10), 1, { retry: false, delayMs: 0 }],
    [
      'RetryableError with retryAfterMs',
      new RetryableError('later', { retryAfterMs: 50 }),
      policy(3, 10),
      1,
      { retry: true, delayMs: 50 },
    ],
    [
      'RetryableError without a delay',
      new RetryableError('later'),
      policy(2, 7),
      2,
      { retry: true, delayMs: 7 },
    ],
    [
      'RetryableError with retryTimes 0',
      new RetryableError('later'),
      policy(0),
      1,
      { retry: false, delayMs: 0 },
    ],
    [
      'a runtime error that says retryable: false',
      Object.assign(new Error('budget'), { code: 'expression_budget', retryable: false }),
      policy(3),
      1,
      { retry: false, delayMs: 0 },
    ],
  ];
  for (const [name, error, handler, attempt, expected] of table) {
    it(name, () => expect(shouldRetry(error, handler, attempt)).toEqual(expected));
  }
});

describe('node authors’ errors, in process', () => {
  it('a node throwing TerminalError runs once under retryTimes: 3', async () => {
    const { node, calls } = counting('terminal_node', () => new TerminalError('bad card'));
    const registry = defaultRegistry.copy().register(node);
    await expect(
      runFlow(parseFlow(flowOf('terminal_node', { retryTimes: 3 }), { registry }), {}),
    ).rejects.toMatchObject({
      type: 'node_error',
      node: 'n',
    });
    expect(calls).toHaveLength(1);
  });

  it('RetryableError({retryAfterMs: 50}) waits 50 ms before the next attempt', async () => {
    const { node, calls } = counting('flaky_node', (attempt) =>
      attempt === 1 ? new RetryableError('busy', { retryAfterMs: 50 }) : null,
    );
    const registry = defaultRegistry.copy().register(node);
    const flow = parseFlow(flowOf('flaky_node', { retryTimes: 3 }), { registry });
    expect(await runFlow(flow, {})).toBe(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(45);
  });
});

describe('node authors’ errors, on the worker', () => {
  it('TerminalError runs once; RetryableError waits its retryAfterMs', async () => {
    const terminal = counting('terminal_node', () => new TerminalError('bad card'));
    const flaky = counting('flaky_node', (attempt) =>
      attempt === 1 ? new RetryableError('busy', { retryAfterMs: 50 }) : null,
    );
    const registry = defaultRegistry.copy().register(terminal.node).register(flaky.node);
    const store = new MemoryExecutionStore();
    const flows = new MemoryFlowStore();
    const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
    const worker = new FlowWorker({ store, flows, queue, registry, pollBlockMs: 20 });
    const client = new PlaitaClient({ store, flows, queue, registry });
    worker.start();
    try {
      const failed = await client.start(flowOf('terminal_node', { retryTimes: 3 }), {});
      const ok = await client.start(flowOf('flaky_node', { retryTimes: 3 }), {});
      expect((await client.waitFor(failed, { timeoutMs: 10_000 })).status).toBe('error');
      expect(terminal.calls).toHaveLength(1);
      const done = await client.waitFor(ok, { timeoutMs: 10_000 });
      expect(done.status).toBe('completed');
      expect(flaky.calls[1]! - flaky.calls[0]!).toBeGreaterThanOrEqual(45);
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
