import { describe, expect, it } from 'vitest';
import {
  createDefaultRegistry,
  defaultRegistry,
  defineNode,
  FlowError,
  parseFlow,
  runFlow,
  type NodeRegistry,
} from '../../src/index.js';

/** A node that waits for its signal (or `ms`) and records what it saw. */
function probes() {
  const seen = { aborted: 0, attempts: [] as number[], keys: [] as string[] };
  const registry: NodeRegistry = defaultRegistry.copy();
  registry.register(
    defineNode({
      type: 'wait',
      run: (ctx) =>
        new Promise((resolve, reject) => {
          seen.attempts.push(ctx.attempt);
          seen.keys.push(ctx.idempotencyKey);
          const ms = Number((ctx.def as Record<string, unknown>).ms ?? 10_000);
          const timer = setTimeout(() => resolve('done'), ms);
          ctx.signal.addEventListener('abort', () => {
            seen.aborted++;
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        }),
    }),
  );
  registry.register(
    defineNode({
      type: 'flaky',
      run: (ctx) => {
        seen.attempts.push(ctx.attempt);
        seen.keys.push(ctx.idempotencyKey);
        if (ctx.attempt < Number((ctx.def as Record<string, unknown>).failures ?? 0) + 1)
          throw new Error(`fail ${ctx.attempt}`);
        return ctx.attempt;
      },
    }),
  );
  return { seen, registry };
}

const chain = (node: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  flow_id: 't',
  ...extra,
  nodes: [
    { type: 'start', id: 's', next: 'n' },
    { id: 'n', next: 'e', ...node },
    { type: 'end', id: 'e', output: '$NODE.n' },
  ],
});

describe('timeouts', () => {
  it("a node timeout aborts the node's signal and fails with NodeTimeout -1 node_error", async () => {
    const { seen, registry } = probes();
    const started = Date.now();
    const error = await runFlow(
      parseFlow(chain({ type: 'wait', timeout: 50 }), { registry }),
      {},
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowError);
    expect(error).toMatchObject({ code: -1, type: 'node_error', name: 'NodeTimeout', node: 'n' });
    expect(seen.aborted).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('the flow budget binding makes the node timeout a flow_error', async () => {
    const { registry } = probes();
    const error = await runFlow(
      parseFlow(chain({ type: 'wait', timeout: 'PT5S' }, { timeout: 'PT0.05S' }), { registry }),
      {},
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -1, type: 'flow_error', name: 'NodeTimeout' });
  });

  it('the abort message names the strategy, the node (name and id) and the duration', async () => {
    const { registry } = probes();
    const messageOf = async (node: Record<string, unknown>, extra = {}): Promise<string> =>
      (
        (await runFlow(parseFlow(chain(node, extra), { registry }), {}).catch(
          (e: unknown) => e,
        )) as FlowError
      ).message;
    expect(await messageOf({ type: 'wait', name: 'Slow one', timeout: 30 })).toBe(
      "node 'Slow one' (n) timed out after 30 ms; its timeoutHandler strategy is abort",
    );
    expect(await messageOf({ type: 'wait', timeout: 'PT5S' }, { timeout: 30 })).toBe(
      "node 'n' ran out of the flow's time budget; its timeoutHandler strategy is abort",
    );
    // A handler message replaces it, as before.
    expect(
      await messageOf({ type: 'wait', timeout: 30, timeoutHandler: { message: 'too slow' } }),
    ).toBe('too slow');
  });

  it('the run option timeout combines with the flow timeout as the smaller', async () => {
    const { registry } = probes();
    const error = await runFlow(
      parseFlow(chain({ type: 'wait' }, { timeout: 'PT10S' }), { registry }),
      {},
      { timeout: 40 },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -1, type: 'flow_error' });
  });

  it('timeoutHandler continue-with gives the default value, never retried', async () => {
    const { seen, registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'wait',
        timeout: 30,
        timeoutHandler: { strategy: 'continue-with', defaultValue: 'late' },
        errorHandler: { retryTimes: 3 },
      }),
      { registry },
    );
    expect(await runFlow(flow, {})).toBe('late');
    expect(seen.attempts).toEqual([1]);
  });

  it('a node timeout inside a child flow is the child node that times out, not the parent', async () => {
    const { registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'child',
        errorHandler: { strategy: 'continue-with', defaultValue: 'child failed' },
        childFlow: {
          nodes: [
            { type: 'start', id: 's', next: 'w' },
            { type: 'wait', id: 'w', timeout: 20, next: 'e' },
            { type: 'end', id: 'e', output: 1 },
          ],
        },
      }),
      { registry },
    );
    expect(await runFlow(flow, {})).toBe('child failed');
  });

  it("the parent node's timeout wins over its child's handlers", async () => {
    const { registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'child',
        timeout: 30,
        timeoutHandler: { strategy: 'continue-with', defaultValue: 'parent timed out' },
        childFlow: {
          nodes: [
            { type: 'start', id: 's', next: 'w' },
            {
              type: 'wait',
              id: 'w',
              errorHandler: { strategy: 'continue-with', defaultValue: 'swallowed' },
              next: 'e',
            },
            { type: 'end', id: 'e', output: '$NODE.w' },
          ],
        },
      }),
      { registry },
    );
    expect(await runFlow(flow, {})).toBe('parent timed out');
  });
});

describe('retries', () => {
  it('retryTimes allows N+1 attempts sharing one idempotency key', async () => {
    const { seen, registry } = probes();
    const flow = parseFlow(chain({ type: 'flaky', failures: 2, errorHandler: { retryTimes: 2 } }), {
      registry,
    });
    expect(await runFlow(flow, {}, { executionId: 'x' })).toBe(3);
    expect(seen.attempts).toEqual([1, 2, 3]);
    expect(new Set(seen.keys)).toEqual(new Set(['x:n:1']));
  });

  it('a negative retryTimes allows no attempt: the node never runs, hooks still see it', async () => {
    const { seen, registry } = probes();
    const events: string[] = [];
    const hooks = {
      onNodeStart: ({ node }: { node: string }) => void events.push(`start ${node}`),
      onNodeEnd: ({ node }: { node: string }) => void events.push(`end ${node}`),
    };
    for (const [handler, expected] of [
      [{ strategy: 'continue', retryTimes: -1 }, null],
      [{ strategy: 'continue-with', defaultValue: { d: 1 }, retryTimes: -3 }, { d: 1 }],
      [{ strategy: 'abort', code: 5, retryTimes: -1 }, null],
    ] as const) {
      const flow = parseFlow(chain({ type: 'flaky', errorHandler: handler }), { registry });
      expect(await runFlow(flow, {}, { hooks })).toEqual(expected);
    }
    expect(seen.attempts).toEqual([]);
    expect(events.filter((e) => e.endsWith(' n'))).toEqual(
      Array.from({ length: 3 }, () => ['start n', 'end n']).flat(),
    );
  });

  it('retryDelay with retryBackoff spaces the attempts', async () => {
    const { registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'flaky',
        failures: 2,
        errorHandler: { retryTimes: 2, retryDelay: 40, retryBackoff: 2 },
      }),
      { registry },
    );
    const started = Date.now();
    expect(await runFlow(flow, {})).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(40 + 80 - 5);
  });

  it('retry waits count against the node budget', async () => {
    const { seen, registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'flaky',
        failures: 5,
        timeout: 60,
        errorHandler: { retryTimes: 5, retryDelay: 'PT1S' },
      }),
      { registry },
    );
    const error = await runFlow(flow, {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -1, name: 'NodeTimeout' });
    expect(seen.attempts).toEqual([1]);
  });

  it('exhausted retries abort with the handler code and message', async () => {
    const { registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'flaky',
        failures: 9,
        errorHandler: { retryTimes: 1, code: 77, message: 'gave up' },
      }),
      { registry },
    );
    const error = await runFlow(flow, {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 77, type: 'node_error', message: 'gave up', node: 'n' });
    expect((error as FlowError).cause).toMatchObject({ name: 'Error', message: 'fail 2' });
  });
});

describe('cancellation', () => {
  it("aborting options.signal fires the running node's signal and fails with FlowCancelled", async () => {
    const { seen, registry } = probes();
    const controller = new AbortController();
    const flow = parseFlow(
      chain({ type: 'wait', errorHandler: { strategy: 'continue', retryTimes: 3 } }),
      { registry },
    );
    const pending = runFlow(flow, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -500, type: 'flow_error', name: 'FlowCancelled' });
    expect(seen.aborted).toBe(1);
    expect(seen.attempts).toEqual([1]); // neither retries nor `continue` swallow it
  });

  it('an already aborted signal runs nothing', async () => {
    const { seen, registry } = probes();
    const error = await runFlow(
      parseFlow(chain({ type: 'flaky' }), { registry }),
      {},
      { signal: AbortSignal.abort() },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'FlowCancelled' });
    expect(seen.attempts).toEqual([]);
  });
});

describe('map', () => {
  it('the first failing child aborts its running siblings', async () => {
    const { seen, registry } = probes();
    const flow = parseFlow(
      chain({
        type: 'map',
        collection: [1, 2, 3],
        concurrent: true,
        childFlow: {
          nodes: [
            { type: 'start', id: 's', next: 'pick' },
            {
              type: 'if',
              id: 'pick',
              condition: { field: '$INPUT.item', operator: 'eq', value: 2 },
              next: 'boom',
              else_next: 'w',
            },
            {
              type: 'end',
              id: 'boom',
              resultType: 'error',
              error: { code: 9, message: 'item 2 failed' },
            },
            { type: 'wait', id: 'w', next: 'e' },
            { type: 'end', id: 'e', output: 1 },
          ],
        },
      }),
      { registry },
    );
    const started = Date.now();
    const error = await runFlow(flow, {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'node_error', node: 'n' });
    expect((error as FlowError).message).toContain('item 2 failed');
    expect(seen.aborted).toBe(2);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

/**
 * Nodes that never wait on I/O (assignments in a long loop) must still let the event loop run:
 * otherwise the abort below, a timer or a worker's lease renewal waits for the whole loop.
 */
describe('a long loop of synchronous nodes', () => {
  it('is cancelled at a node boundary soon after the signal, not when the loop ends', async () => {
    const child = {
      nodes: [
        { type: 'start', id: 's', next: 'a0' },
        ...Array.from({ length: 60 }, (_, i) => ({
          type: 'assignment',
          id: `a${i}`,
          output: i,
          next: i === 59 ? 'e' : `a${i + 1}`,
        })),
        { type: 'end', id: 'e', output: 1 },
      ],
    };
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'w' },
        {
          type: 'while',
          id: 'w',
          maxIterations: 100_000,
          condition: { field: 1, operator: 'eq', value: 1 },
          childFlow: child,
          next: 'e',
        },
        { type: 'end', id: 'e' },
      ],
    });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const outcome = await runFlow(flow, {}, { signal: controller.signal }).then(
      () => null,
      (error: unknown) => error,
    );
    clearTimeout(timer);
    // The whole loop takes seconds (6 M nodes) and would end successfully; the abort lands first.
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(outcome).toMatchObject({ name: 'FlowCancelled' });
  });
});

/**
 * Node's setTimeout fires at once past 2^31 - 1 ms (≈ 24.8 days): a `P30D` timeout — valid
 * ISO 8601, and `P4W` is past it too — must still be a bound of thirty days, not of 1 ms.
 */
describe('a timeout longer than a Node timer can hold', () => {
  it('P30D on the flow and on a node lets a 30 ms node finish', async () => {
    const registry = createDefaultRegistry();
    registry.register(
      defineNode({
        type: 'pause.briefly',
        run: () => new Promise((resolve) => setTimeout(() => resolve('done'), 30)),
      }),
    );
    const flow = parseFlow(
      {
        timeout: 'P30D',
        nodes: [
          { type: 'start', id: 's', next: 'p' },
          { type: 'pause.briefly', id: 'p', timeout: 'P30D', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.p' },
        ],
      },
      { registry },
    );
    expect(await runFlow(flow, {}, { registry })).toBe('done');
  });
});
