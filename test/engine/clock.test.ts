import { describe, expect, it } from 'vitest';
import {
  defaultRegistry,
  defineNode,
  FakeClock,
  FlowError,
  runFlow,
  stepFlow,
  type NodeRegistry,
} from '../../src/index.js';

/**
 * The engine's time is `EngineOptions.clock`: node and flow timeouts, retry waits, `$F.now`
 * and a delay's due time all follow a FakeClock, so none of these tests sleeps. Each would
 * hang for an hour (its timeout) if the engine read the system clock instead.
 */

const HOUR = 3_600_000;

function registryWith(...extra: Array<Parameters<typeof defineNode>[0]>): NodeRegistry {
  const registry = defaultRegistry.copy();
  for (const node of extra)
    registry.register(defineNode(node) as Parameters<NodeRegistry['register']>[0]);
  return registry;
}

/** Waits on the node's own clock (an hour), or fails as soon as its signal aborts. */
const hourLong = {
  type: 'hour_long',
  run: (ctx: Parameters<Parameters<typeof defineNode>[0]['run']>[0]) =>
    new Promise((resolve, reject) => {
      const cancel = ctx.clock.setTimeout(() => resolve('finished'), HOUR);
      ctx.signal.addEventListener('abort', () => {
        cancel();
        reject(new Error('aborted'));
      });
    }),
};

const chain = (node: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  flow_id: 'clocked',
  ...extra,
  nodes: [
    { type: 'start', id: 's', next: 'n' },
    { id: 'n', next: 'e', ...node },
    { type: 'end', id: 'e', output: '$NODE.n' },
  ],
});

/** Runs the flow while moving the fake clock on until the run settles. */
async function runOn(clock: FakeClock, flow: unknown, registry: NodeRegistry, stepMs: number) {
  let settled = false;
  const run = runFlow(flow as Record<string, unknown>, {}, { clock, registry });
  run.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 1_000 && !settled; i += 1) await clock.advance(stepMs);
  return run;
}

describe('EngineOptions.clock', () => {
  it('a node timeout fires when the fake clock passes it, not when real time does', async () => {
    const clock = new FakeClock();
    const registry = registryWith(hourLong);
    const flow = chain({ type: 'hour_long', timeout: 'PT1M' });
    const started = performance.now();
    const error = await runOn(clock, flow, registry, 10_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowError);
    expect((error as FlowError).name).toBe('NodeTimeout');
    // 60 s of fake time passed; the real test took far less than the timeout itself.
    expect(clock.now() - new FakeClock().now()).toBeGreaterThanOrEqual(60_000);
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  it('the node finishes when the fake hour is up, and a flow timeout beyond it does not fire', async () => {
    const clock = new FakeClock();
    const output = await runOn(
      clock,
      chain({ type: 'hour_long', timeout: 'PT2H' }, { timeout: 'PT2H' }),
      registryWith(hourLong),
      60_000,
    );
    expect(output).toBe('finished');
  });

  it('a retry waits its retryDelay on the clock', async () => {
    const clock = new FakeClock();
    const attemptsAt: number[] = [];
    const registry = registryWith({
      type: 'flaky',
      run: (ctx) => {
        attemptsAt.push(ctx.clock.now());
        if (ctx.attempt < 3) throw new Error(`fail ${ctx.attempt}`);
        return ctx.attempt;
      },
    });
    const flow = chain({
      type: 'flaky',
      errorHandler: { retryTimes: 3, retryDelay: 'PT10M' },
    });
    expect(await runOn(clock, flow, registry, 60_000)).toBe(3);
    expect(attemptsAt).toHaveLength(3);
    // Ten minutes between attempts, on the fake clock (its steps are a minute).
    expect(attemptsAt[1]! - attemptsAt[0]!).toBeGreaterThanOrEqual(600_000);
    expect(attemptsAt[2]! - attemptsAt[1]!).toBeGreaterThanOrEqual(600_000);
  });

  it('$F.now reads the clock, in the flow time zone', async () => {
    const clock = new FakeClock(Date.UTC(2031, 6, 4, 12, 30, 0));
    const output = await runFlow(
      {
        flow_id: 'now',
        nodes: [
          { type: 'start', id: 's', next: 'e' },
          { type: 'end', id: 'e', output: "$F.now('%Y-%m-%d %H:%M')" },
        ],
      },
      {},
      { clock, timeZone: 'Asia/Tokyo' },
    );
    expect(output).toBe('2031-07-04 21:30');
  });

  it("a delay node's due time is the clock's now plus its delay", async () => {
    const clock = new FakeClock(Date.UTC(2030, 0, 1));
    const steps = stepFlow(
      {
        flow_id: 'delayed',
        nodes: [
          { type: 'start', id: 's', next: 'd' },
          { type: 'delay', id: 'd', delay_seconds: 90, next: 'e' },
          { type: 'end', id: 'e' },
        ],
      },
      {},
      { clock },
    );
    const seen: unknown[] = [];
    for await (const step of steps) seen.push(step);
    const waiting = JSON.stringify(seen);
    expect(waiting).toContain(String(Date.UTC(2030, 0, 1) + 90_000));
  });
});
