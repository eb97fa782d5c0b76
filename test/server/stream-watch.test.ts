import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CheckpointWatch, type WatchResult } from '../../src/server/stream/checkpoint-watch.js';
import {
  newExecutionState,
  type ExecutionState,
  type ExecutionStatus,
} from '../../src/state/execution-state.js';
import { silentLogger } from '../../src/util/logger.js';

/** One execution whose saved version and status a test sets; counts reads and renders. */
class FakeExecution {
  version = 1;
  status: ExecutionStatus = 'running';
  deleted = false;
  failNext = false;
  loads: number[] = [];
  renders = 0;

  state(): ExecutionState {
    return {
      ...newExecutionState({ executionId: 'e1' }),
      version: this.version,
      status: this.status,
    };
  }

  source() {
    return {
      load: () => {
        this.loads.push(Date.now());
        if (this.failNext) {
          this.failNext = false;
          return Promise.reject(new Error('store down'));
        }
        return Promise.resolve(this.deleted ? null : this.state());
      },
      render: (state: ExecutionState) => {
        this.renders++;
        return Promise.resolve(JSON.stringify({ version: state.version }));
      },
    };
  }
}

let execution: FakeExecution;
let watch: CheckpointWatch;
const never = new AbortController().signal;

beforeEach(async () => {
  vi.useFakeTimers();
  execution = new FakeExecution();
  watch = new CheckpointWatch(execution.source(), { minPollMs: 100, maxPollMs: 800 }, silentLogger);
  await watch.offer(execution.state());
  watch.start();
});

afterEach(() => {
  watch.stop();
  vi.useRealTimers();
});

const versionOf = (result: WatchResult | undefined) =>
  typeof result === 'object' ? result.version : result;

describe('CheckpointWatch', () => {
  it('one read per poll and one render per version, however many viewers wait', async () => {
    const results: WatchResult[] = [];
    for (let i = 0; i < 5; i++) void watch.next(1, never).then((r) => results.push(r));
    await vi.advanceTimersByTimeAsync(300);
    expect(execution.loads).toHaveLength(2);
    expect(results).toEqual([]);

    execution.version = 4;
    await vi.advanceTimersByTimeAsync(400);
    expect(execution.loads).toHaveLength(3);
    expect(results.map(versionOf)).toEqual([4, 4, 4, 4, 4]);
    expect(execution.renders).toBe(2);
  });

  it('backs off while idle up to maxPollMs, and polls at minPollMs again after a change', async () => {
    const start = Date.now();
    await vi.advanceTimersByTimeAsync(100 + 200 + 400 + 800 + 800);
    expect(execution.loads.map((t) => t - start)).toEqual([100, 300, 700, 1500, 2300]);
    execution.version = 2;
    await vi.advanceTimersByTimeAsync(800 + 100 + 200);
    expect(execution.loads.slice(5).map((t) => t - start)).toEqual([3100, 3200, 3400]);
  });

  it('gives the newest version at once to a viewer behind it, and a terminal one even when current', async () => {
    expect(versionOf(await watch.next(0, never))).toBe(1);
    execution.version = 7;
    execution.status = 'completed';
    await vi.advanceTimersByTimeAsync(100);
    expect(versionOf(await watch.next(3, never))).toBe(7);
    expect(versionOf(await watch.next(7, never))).toBe(7);
  });

  it('keeps polling after a failed read, and reports a deleted execution as gone', async () => {
    const result = watch.next(1, never);
    execution.failNext = true;
    await vi.advanceTimersByTimeAsync(100);
    execution.deleted = true;
    await vi.advanceTimersByTimeAsync(200);
    expect(await result).toBe('gone');
  });

  it('a viewer that stops waiting gets aborted; stop() ends the polls', async () => {
    const controller = new AbortController();
    const result = watch.next(1, controller.signal);
    controller.abort();
    expect(await result).toBe('aborted');
    watch.stop();
    const before = execution.loads.length;
    await vi.advanceTimersByTimeAsync(5000);
    expect(execution.loads).toHaveLength(before);
  });
});
