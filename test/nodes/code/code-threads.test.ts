import { afterAll, describe, expect, it } from 'vitest';
import {
  CodeError,
  CodeOutputTooLargeError,
  CodeTimeoutError,
} from '../../../src/errors/code-errors.js';
import { StateSerializationError } from '../../../src/errors/state-errors.js';
import { CodeThreads } from '../../../src/nodes/code/code-threads.js';

/**
 * limits.codeThreads: a JavaScript code node on a thread answers as on the calling thread —
 * its result, and each failure as the same typed error (classes do not cross threads, so they
 * are rebuilt here), while the calling thread's event loop stays free.
 */
const threads = new CodeThreads();
afterAll(() => threads.close());

const run = (source: string, input: unknown = null, extra: { cpuMs?: number } = {}) =>
  threads.run(
    {
      source,
      input,
      nowMs: Date.UTC(2026, 0, 2),
      root: '$NODE.calc',
      tenant: 't1',
      cpuMs: extra.cpuMs ?? 1_000,
      memoryBytes: 32 * 1024 * 1024,
      outputBytes: 1024,
    },
    2,
  );

describe('code nodes on threads', () => {
  it('returns the result, with the execution’s clock inside', async () => {
    expect(
      await run('function run(input) { return { sum: input.a + input.b, at: Date.now() } }', {
        a: 1,
        b: 2,
      }),
    ).toEqual({
      sum: 3,
      at: Date.UTC(2026, 0, 2),
    });
  });

  it('rebuilds each failure as its typed error, position included', async () => {
    const thrown = await run('function run(input) {\n  return input.x.y\n}').catch(
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(CodeError);
    expect(thrown).toMatchObject({ code: 'code_error', line: 2, retryable: true });
    await expect(run('function run() { return "x".repeat(5000) }')).rejects.toBeInstanceOf(
      CodeOutputTooLargeError,
    );
    await expect(run('function run() { return 1 }', { fn: () => 1 })).rejects.toBeInstanceOf(
      StateSerializationError,
    );
  });

  it('a runaway ends code_timeout while this thread’s event loop keeps turning', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      await expect(
        run('function run() { while (true) {} }', null, { cpuMs: 300 }),
      ).rejects.toBeInstanceOf(CodeTimeoutError);
    } finally {
      clearInterval(timer);
    }
    // On the calling thread the loop would not have turned once in those 300 ms.
    expect(ticks).toBeGreaterThan(5);
  });
});
