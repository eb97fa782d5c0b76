import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors/store-errors.js';
import { BackgroundLoop, type BackgroundLoopOptions } from '../../src/util/background-loop.js';
import { FakeClock } from '../../src/util/fake-clock.js';
import type { Logger } from '../../src/util/logger.js';

function capture() {
  const lines: string[] = [];
  const log: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (_fields, message) => lines.push(message),
    error: () => undefined,
    child: () => log,
  };
  return { log, lines };
}

/** A tick that records when it started (fake time) and ends when the test says so. */
function heldTicks(clock: FakeClock) {
  const startedAt: number[] = [];
  const ends: Array<() => void> = [];
  const tick = (): Promise<void> => {
    startedAt.push(clock.now());
    return new Promise((resolve) => ends.push(resolve));
  };
  const endTick = async (): Promise<void> => {
    ends.shift()?.();
    await clock.advance(0);
  };
  return { tick, startedAt, endTick };
}

function loopOf(
  tick: () => Promise<unknown>,
  clock: FakeClock,
  options: Partial<BackgroundLoopOptions> = {},
): BackgroundLoop {
  return new BackgroundLoop(tick, {
    name: 'the test loop',
    log: capture().log,
    intervalMs: 100,
    clock,
    ...options,
  });
}

describe('BackgroundLoop', () => {
  it('after-tick: the first tick after firstTickMs, each next one intervalMs after the last ended', async () => {
    const clock = new FakeClock(0);
    const { tick, startedAt, endTick } = heldTicks(clock);
    const loop = loopOf(tick, clock, { firstTickMs: 0 }).start();
    expect(startedAt).toEqual([]); // not inside start(): on the clock's next turn
    await clock.advance(0);
    expect(startedAt).toEqual([0]);
    await clock.advance(250); // a slow tick: nothing else starts meanwhile
    expect(startedAt).toEqual([0]);
    await endTick();
    await clock.advance(99);
    expect(startedAt).toEqual([0]);
    await clock.advance(1);
    expect(startedAt).toEqual([0, 350]);
    await endTick();
    await loop.stop();
  });

  it('fixed-rate: a tick every intervalMs from the first; one due while the last runs is skipped', async () => {
    const clock = new FakeClock(0);
    const { tick, startedAt, endTick } = heldTicks(clock);
    const loop = loopOf(tick, clock, { pace: 'fixed-rate' }).start();
    await clock.advance(100);
    expect(startedAt).toEqual([100]);
    await clock.advance(150); // due at 200 while the first still runs: skipped
    await endTick();
    await clock.advance(50);
    expect(startedAt).toEqual([100, 300]);
    await endTick();
    await clock.advance(100);
    expect(startedAt).toEqual([100, 300, 400]);
    await endTick();
    await loop.stop();
  });

  it('firstTickMs now: the first tick begins inside start()', async () => {
    const clock = new FakeClock(0);
    const { tick, startedAt, endTick } = heldTicks(clock);
    const loop = loopOf(tick, clock, { firstTickMs: 'now', pace: 'fixed-rate' }).start();
    expect(startedAt).toEqual([0]);
    await endTick();
    await clock.advance(100);
    expect(startedAt).toEqual([0, 100]);
    await endTick();
    await loop.stop();
  });

  it('a failed tick is logged, not thrown, and the loop goes on; with maxBackoffMs it waits longer', async () => {
    const clock = new FakeClock(0);
    const { log, lines } = capture();
    const startedAt: number[] = [];
    let failing = true;
    const tick = (): Promise<void> => {
      startedAt.push(clock.now());
      return failing ? Promise.reject(new StoreUnavailableError('down')) : Promise.resolve();
    };
    const loop = loopOf(tick, clock, { log, firstTickMs: 0, maxBackoffMs: 1000 }).start();
    await clock.advance(0);
    await clock.advance(200 + 400 + 800);
    expect(startedAt).toEqual([0, 200, 600, 1400]); // 100·2ⁿ after n failures in a row
    failing = false;
    await clock.advance(1000); // capped at maxBackoffMs
    expect(startedAt).toEqual([0, 200, 600, 1400, 2400]);
    await clock.advance(100); // it works again: back to intervalMs
    expect(startedAt).toEqual([0, 200, 600, 1400, 2400, 2500]);
    // The failure log's own pace: the first failure, then (within a minute) only the recovery.
    expect(lines).toEqual(['the test loop failed; retrying', 'the test loop works again']);
    await loop.stop();
  });

  it('without maxBackoffMs a failed tick is followed after intervalMs', async () => {
    const clock = new FakeClock(0);
    const startedAt: number[] = [];
    const tick = (): Promise<void> => {
      startedAt.push(clock.now());
      return Promise.reject(new Error('bug'));
    };
    const loop = loopOf(tick, clock, { firstTickMs: 0 }).start();
    await clock.advance(300);
    expect(startedAt).toEqual([0, 100, 200, 300]);
    await loop.stop();
  });

  it('stop() waits for the tick in flight and no tick starts after it', async () => {
    const clock = new FakeClock(0);
    const { tick, startedAt, endTick } = heldTicks(clock);
    const loop = loopOf(tick, clock).start();
    await clock.advance(100);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await clock.advance(0);
    expect(stopped).toBe(false);
    await endTick();
    await stopping;
    expect(stopped).toBe(true);
    await clock.advance(1000);
    expect(startedAt).toEqual([100]);
    expect(clock.pendingTimers).toBe(0);
    loop.start(); // a stopped loop stays stopped
    await clock.advance(1000);
    expect(startedAt).toEqual([100]);
  });

  it('its timers do not keep the process alive', async () => {
    const loop = new BackgroundLoop(() => Promise.resolve(), {
      name: 'the test loop',
      log: capture().log,
      intervalMs: 60_000,
    });
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    loop.start();
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
    await loop.stop();
  });
});
