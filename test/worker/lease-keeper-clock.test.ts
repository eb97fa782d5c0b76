import { describe, expect, it } from 'vitest';
import { CancelRequestedError } from '../../src/errors/execution-errors.js';
import { LeaseLostError } from '../../src/errors/worker-errors.js';
import { FakeClock } from '../../src/util/fake-clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { type HeldWork, LeaseKeeper } from '../../src/worker/lease-keeper.js';

/**
 * The keeper's policy on a fake clock: when it renews, when it gives up, how fast a cancel
 * lands. What it holds is answered by a scripted HeldWork (the store and queue behind the real
 * one are covered by the worker's fault tests); here only the timing is under test.
 */
function scripted(answers: { lease?: boolean[]; message?: boolean; cancel?: boolean } = {}) {
  const calls = { lease: [] as number[], message: [] as number[], cancel: 0 };
  const clock = new FakeClock();
  const held: HeldWork = {
    executionId: 'exec-1',
    messageId: 'msg-1',
    renewLease: () => {
      calls.lease.push(clock.now());
      return Promise.resolve(answers.lease?.[calls.lease.length - 1] ?? true);
    },
    renewMessage: () => {
      calls.message.push(clock.now());
      return Promise.resolve(answers.message ?? true);
    },
    isCancelRequested: () => {
      calls.cancel += 1;
      return Promise.resolve(answers.cancel ?? false);
    },
  };
  const keeper = new LeaseKeeper(held, {
    leaseTtlMs: 30_000,
    visibilityTimeoutMs: 60_000,
    log: silentLogger,
    clock,
  });
  return { calls, clock, keeper, start: clock.now() };
}

describe('LeaseKeeper on an injected clock', () => {
  it('renews the lease every third of its TTL and the message every third of its visibility', async () => {
    const { calls, clock, keeper, start } = scripted();
    await clock.advance(65_000);
    keeper.stop();
    expect(calls.lease.map((t) => t - start)).toEqual([
      10_000, 20_000, 30_000, 40_000, 50_000, 60_000,
    ]);
    expect(calls.message.map((t) => t - start)).toEqual([20_000, 40_000, 60_000]);
    expect(calls.cancel).toBe(65);
    expect(keeper.signal.aborted).toBe(false);
    // Stopped: no timer is left behind, so nothing renews after the work is done.
    expect(clock.pendingTimers).toBe(0);
  });

  it('a renewal answered "not yours" aborts the work with LeaseLostError', async () => {
    const { clock, keeper } = scripted({ lease: [true, false] });
    await clock.advance(15_000);
    expect(keeper.signal.aborted).toBe(false);
    await clock.advance(10_000);
    expect(keeper.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(() => keeper.throwIfLost()).toThrow(LeaseLostError);
    keeper.stop();
  });

  it('a cancel request lands within a second', async () => {
    const { clock, keeper } = scripted({ cancel: true });
    await clock.advance(999);
    expect(keeper.cancelRequested).toBe(false);
    await clock.advance(1);
    expect(keeper.cancelRequested).toBe(true);
    expect(keeper.signal.reason).toBeInstanceOf(CancelRequestedError);
    keeper.stop();
  });
});
