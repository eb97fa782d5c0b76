import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadQuickJS } from '../../../src/nodes/code/code-runtime.js';
import { JavaScriptSandboxes } from '../../../src/nodes/code/javascript-sandboxes.js';
import { failure, runCode } from './code-flow-support.js';

beforeAll(async () => {
  await loadQuickJS();
});

/** After every limit: the same worker still runs code normally. */
async function stillHealthy(): Promise<void> {
  expect(await runCode({ code: 'function run(x) { return x * 3 }', input: 14 })).toBe(42);
}

describe('the JavaScript sandbox limits', () => {
  it('while (true) {} ends with code_timeout at the CPU limit', async () => {
    const started = performance.now();
    const error = await failure(
      runCode({ code: 'function run() { while (true) {} }' }, {}, { codeTimeoutMs: 200 }),
    );
    expect(error).toMatchObject({ type: 'code_timeout', node: 'c' });
    expect(performance.now() - started).toBeLessThan(1500);
    await stillHealthy();
  });

  it('an infinite loop inside an async run is stopped too', async () => {
    const error = await failure(
      runCode(
        { code: 'async function run() { await null; for (;;) {} }' },
        {},
        { codeTimeoutMs: 150 },
      ),
    );
    expect(error).toMatchObject({ type: 'code_timeout' });
  });

  it("the node's own timeout cuts the CPU budget", async () => {
    const started = performance.now();
    const error = await failure(
      runCode(
        { code: 'function run() { for (;;) {} }', timeout: 100 },
        {},
        { codeTimeoutMs: 5000 },
      ),
    );
    expect(error).toMatchObject({ type: 'code_timeout' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it.each([
    ['an array that grows forever', 'const a = []; for (;;) a.push(a.length)'],
    ['strings made by String#repeat', 'const a = []; for (;;) a.push("x".repeat(1e5))'],
    ['a doubling string', 'let s = "x"; for (;;) s += s'],
  ])('a memory bomb (%s) ends with code_memory', async (_what, body) => {
    // A generous CPU limit, so that memory is the limit these meet even on a busy machine.
    const error = await failure(
      runCode({ code: `function run() { ${body} }` }, {}, { codeTimeoutMs: 10_000 }),
    );
    expect(error).toMatchObject({ type: 'code_memory', node: 'c' });
    await stillHealthy();
  });

  it('a slow string builder (Array#join) stops at the first limit it meets', async () => {
    const code = 'function run() { const a = []; for (;;) a.push(new Array(1e5).join("y")) }';
    const error = await failure(runCode({ code }));
    expect(['code_memory', 'code_timeout']).toContain(error.type);
    await stillHealthy();
  });

  it('runaway recursion is a code_error (stack overflow), and the worker survives', async () => {
    const error = await failure(
      runCode({ code: 'function run(n) { return run(n + 1) + 1 }', input: 0 }),
    );
    expect(error).toMatchObject({ type: 'code_error' });
    expect((error.originalError as Error).message).toContain('stack overflow');
    await stillHealthy();
  });

  it('a result over codeOutputBytes is code_output_too_large', async () => {
    const error = await failure(
      runCode(
        { code: 'function run() { return "x".repeat(5000) }' },
        {},
        { codeOutputBytes: 1000 },
      ),
    );
    expect(error).toMatchObject({ type: 'code_output_too_large', node: 'c' });
    expect((error.originalError as Error).message).toBe(
      'the result is 5002 characters once encoded, over the limit of 1000',
    );
    // Bytes, not characters: 900 characters of three UTF-8 bytes each are 2,702 bytes encoded.
    const wide = await failure(
      runCode(
        { code: 'function run() { return "中".repeat(900) }' },
        {},
        { codeOutputBytes: 1000 },
      ),
    );
    expect(wide).toMatchObject({ type: 'code_output_too_large', node: 'c' });
    expect((wide.originalError as Error).message).toBe(
      'the result is 2702 bytes once encoded, over the limit of 1000',
    );
    // The default limit (1 MiB) lets ordinary results through.
    expect(await runCode({ code: 'function run() { return "x".repeat(5000) }' })).toHaveLength(
      5000,
    );
  });
});

describe('warm sandboxes', () => {
  it('belong to their owner: two owners share none, and dispose frees them', async () => {
    const mine = new JavaScriptSandboxes();
    const theirs = new JavaScriptSandboxes();
    onTestFinished(() => {
      mine.dispose();
      theirs.dispose();
    });
    // The same code of the same tenant: only the owner tells the two apart.
    const count = (sandboxes: JavaScriptSandboxes) =>
      sandboxes.run({
        source: 'var runs = 0; function run() { return ++runs }',
        input: null,
        nowMs: Date.now(),
        root: '$NODE.c',
        tenant: 't',
        cpuMs: 2000,
        memoryBytes: 32 * 1024 * 1024,
        outputBytes: 1024,
      });
    expect(await count(mine)).toBe(1);
    expect(await count(mine)).toBe(2);
    expect(await count(theirs)).toBe(1);
    expect(mine.warmCount).toBe(1);
    mine.dispose();
    expect(mine.warmCount).toBe(0);
    expect(await count(mine)).toBe(1);
    expect(await count(theirs)).toBe(2);
  });

  it('all go once the process is past PLAITA_CODE_WARM_RSS_MB, so kept data cannot starve other runs', async () => {
    const sandboxes = new JavaScriptSandboxes();
    const run = (source: string, tenant: string) =>
      sandboxes.run({
        source,
        input: null,
        nowMs: Date.now(),
        root: '$NODE.c',
        tenant,
        cpuMs: 2000,
        memoryBytes: 32 * 1024 * 1024,
        outputBytes: 1024 * 1024,
      });
    const hoarder =
      "var keep; function run() { var s = 'ab'; for (var k = 0; k < 20; k++) s = s + s; keep = s; return s.length }";
    expect(await run(hoarder, 'a')).toBe(2 ** 21);
    expect(await run('function run() { return 1 }', 'b')).toBe(1);
    expect(sandboxes.warmCount).toBe(2);
    process.env.PLAITA_CODE_WARM_RSS_MB = '1'; // any process is past 1 MB
    await new Promise((resolve) => setTimeout(resolve, 60)); // the size is read every 50 ms
    try {
      expect(await run('function run() { return 2 }', 'c')).toBe(2);
      expect(sandboxes.warmCount).toBe(0);
    } finally {
      delete process.env.PLAITA_CODE_WARM_RSS_MB;
      sandboxes.dispose();
    }
  });
});

describe('a trap inside the WebAssembly instance', () => {
  it("is the trapping run's code_error, and every tenant's next run gets a sound instance", async () => {
    const sandboxes = new JavaScriptSandboxes();
    onTestFinished(() => sandboxes.dispose());
    const run = (source: string, tenant: string, input: unknown = null) =>
      Promise.resolve().then(() =>
        sandboxes.run({
          source,
          input,
          nowMs: Date.now(),
          root: '$NODE.c',
          tenant,
          cpuMs: 5000,
          memoryBytes: 32 * 1024 * 1024,
          outputBytes: 1024 * 1024,
        }),
      );
    const greet = 'function run(i) { return "hello " + i.n }';
    expect(await run(greet, 'victim', { n: 1 })).toBe('hello 1');
    // Nested deep enough that stringifying it overflows the host's stack before QuickJS's own
    // stack limit sees it: the instance traps mid-call.
    for (let attempt = 0; attempt < 3; attempt++) {
      const trap = `function run() { let a = [1]; for (let i = 0; i < 100000; i++) a = [a]; return JSON.stringify(a).length } // ${attempt}`;
      await expect(run(trap, 'attacker')).rejects.toMatchObject({ code: 'code_error' });
    }
    expect(await run(greet, 'victim', { n: 2 })).toBe('hello 2');
  });
});

describe('an error the code throws', () => {
  it('keeps at most 4,096 characters of its message (it becomes the stored error)', async () => {
    const error = await failure(
      runCode({ code: 'function run() { throw new Error("x".repeat(8000000)) }' }),
    );
    expect(error).toMatchObject({ type: 'code_error', node: 'c' });
    const message = (error.originalError as Error).message;
    expect(message.length).toBeLessThan(5_000);
    expect(message).toContain('(7995904 more characters)');
  });
});
