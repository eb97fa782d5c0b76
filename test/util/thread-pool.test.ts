import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadPool, type ThreadTask } from '../../src/util/thread-pool.js';

const SCRIPT = new URL('./fixtures/busy-thread.mjs', import.meta.url);

class Late extends Error {}

let pool: ThreadPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

function task(tenant: string, message: unknown, extra: Partial<ThreadTask> = {}): ThreadTask {
  return { tenant, message, deadlineMs: 10_000, onDeadline: () => new Late('late'), ...extra };
}

describe('ThreadPool', () => {
  it('runs tasks on threads and answers what they return', async () => {
    pool = new ThreadPool({ script: SCRIPT, size: 2 });
    const values = await Promise.all([1, 2, 3].map((n) => pool!.run(task('a', { value: n }))));
    expect(values).toEqual([1, 2, 3]);
  });

  it('keeps a thread for another tenant while one tenant has work queued', async () => {
    pool = new ThreadPool({ script: SCRIPT, size: 2 });
    const order: string[] = [];
    const busy = Array.from({ length: 4 }, (_, i) =>
      pool!.run(task('a', { spinMs: 300, value: `a${i}` })).then((v) => order.push(String(v))),
    );
    // Queued after all of a's: still runs on the thread a may not take.
    const other = pool
      .run(task('b', { spinMs: 50, value: 'b' }))
      .then((v) => order.push(String(v)));
    await Promise.all([...busy, other]);
    expect(order[0]).toBe('b');
    expect(order.slice(1)).toEqual(['a0', 'a1', 'a2', 'a3']);
  });

  it('ends a thread past its deadline with the task’s error, and replaces it', async () => {
    pool = new ThreadPool({ script: SCRIPT, size: 1 });
    await expect(
      pool.run(task('a', { spinMs: 5_000 }, { deadlineMs: 200 })),
    ).rejects.toBeInstanceOf(Late);
    expect(await pool.run(task('a', { value: 'next' }))).toBe('next');
  });

  it('an aborted task leaves the queue, or has its thread ended', async () => {
    pool = new ThreadPool({ script: SCRIPT, size: 1 });
    const running = new AbortController();
    const queued = new AbortController();
    const first = pool.run(task('a', { spinMs: 5_000 }, { signal: running.signal }));
    const second = pool.run(task('a', { value: 'never' }, { signal: queued.signal }));
    queued.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    running.abort(new Error('client left'));
    await expect(first).rejects.toThrow('client left');
    expect(await pool.run(task('a', { value: 'after' }))).toBe('after');
  });

  it('answers a thread’s call while its task works, and reports a thread’s failure', async () => {
    pool = new ThreadPool({ script: SCRIPT, size: 1 });
    const asked: unknown[] = [];
    const answer = (request: unknown) => {
      asked.push(request);
      return Promise.resolve({ flow: 'doc' });
    };
    expect(await pool.run(task('a', { ask: { flowId: 'f' } }, { answer }))).toEqual({
      flow: 'doc',
    });
    expect(asked).toEqual([{ flowId: 'f' }]);
    await expect(pool.run(task('a', { fail: 'boom' }))).rejects.toThrow('Error: boom');
  });

  it('lets its process exit once the work is done, without being closed', async () => {
    const script = fileURLToPath(new URL('./fixtures/pool-exits.mjs', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 20_000 });
    expect(stdout.trim()).toBe('1,2');
  });
});
