import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadQuickJS } from '../../../src/nodes/code/code-runtime.js';
import { JavaScriptSandboxes } from '../../../src/nodes/code/javascript-sandboxes.js';
import { failure, runCode } from './code-flow-support.js';

// Issue 35: typed arrays and ArrayBuffers passed the memory limit (two hundred 8 MB arrays
// completed under a 32 MiB limit, and the process kept 1.6 GB). Real QuickJS, no mocks.

beforeAll(async () => {
  await loadQuickJS();
});

/** A generous CPU limit, so that memory is the limit these meet even on a busy machine. */
const SLOW = { codeTimeoutMs: 20_000 };

/** After every limit: the same process still runs code normally. */
async function stillHealthy(): Promise<void> {
  expect(await runCode({ code: 'function run(x) { return x * 3 }', input: 14 })).toBe(42);
}

async function memoryFailure(code: string, input: unknown = {}, limits = {}): Promise<void> {
  const error = await failure(runCode({ code, input: '$INPUT' }, input, { ...SLOW, ...limits }));
  expect(error).toMatchObject({ type: 'code_memory', node: 'c' });
  await stillHealthy();
}

describe('the memory limit counts binary data', () => {
  it('two hundred 8 MB typed arrays end code_memory (they completed under a 32 MiB limit)', async () => {
    await memoryFailure(
      'function run(input) { const a = []; for (let i = 0; i < input.n; i++) a.push(new Float64Array(1e6)); return a.length }',
      { n: 200 },
    );
  });

  it('a burst just past the limit is caught, one under it is not', async () => {
    const code =
      'function run(input) { const a = []; for (let i = 0; i < input.n; i++) a.push(new Float64Array(1e6)); return a.length }';
    // 40 MB held against 32 MiB: fewer branches than QuickJS polls after, and the heap had room.
    await memoryFailure(code, { n: 5 });
    expect(await runCode({ code, input: '$INPUT' }, { n: 3 }, SLOW)).toBe(3);
    // The limit is the operator's: 16 MB held against 8 MiB.
    await memoryFailure(code, { n: 2 }, { codeMemoryBytes: 8 * 1024 * 1024 });
  });

  it.each([
    ['ArrayBuffer', 'a.push(new ArrayBuffer(4e6))'],
    ['ArrayBuffer#slice', 'a.push(big.slice(0))'],
    ['TypedArray#toReversed', 'a.push(bytes.toReversed())'],
    ['TypedArray#map', 'a.push(doubles.map((x) => x + 1))'],
    ['a growing resizable buffer', 'growing.resize(growing.byteLength + 4e6)'],
  ])('%s ends code_memory', async (_what, step) => {
    // Twelve 4 MB steps: 48 MB against 32 MiB, short of what the old RSS watchdog noticed.
    await memoryFailure(
      `const big = new ArrayBuffer(4e6), bytes = new Uint8Array(big), doubles = new Float64Array(5e5);
       function run() {
         const a = [], growing = new ArrayBuffer(0, { maxByteLength: 2 ** 30 });
         for (let i = 0; i < 12; i++) { ${step} }
         return a.length + growing.byteLength;
       }`,
    );
  });

  it('strings and arrays of objects end code_memory too', async () => {
    await memoryFailure(
      'function run() { const a = []; for (;;) a.push("x".repeat(1e5) + a.length) }',
    );
    await memoryFailure(
      'function run() { const a = []; for (;;) a.push({ i: a.length, s: "item " + a.length }) }',
    );
  });
});

describe('a run over the limit ends code_memory even when it catches the error', () => {
  it.each([
    [
      'catches each failed allocation and returns',
      'function run() { const a = []; let failed = 0; for (let i = 0; i < 400; i++) { try { a.push(new ArrayBuffer(8e6)) } catch (e) { failed++ } } return [a.length, failed] }',
    ],
    [
      'catches one huge allocation',
      'function run() { try { return new ArrayBuffer(1e9).byteLength } catch (e) { return String(e) } }',
    ],
    [
      'catches and keeps going forever',
      'function run() { const a = []; for (;;) { try { a.push(new ArrayBuffer(1e6)) } catch (e) {} } }',
    ],
    [
      'catches the string budget',
      'function run() { const a = []; try { for (;;) a.push("y".repeat(1e6)) } catch (e) { return a.length } }',
    ],
  ])('code that %s', async (_what, code) => {
    await memoryFailure(code);
  });

  it('after an await, and in top-level code', async () => {
    await memoryFailure(
      'async function run() { await null; const a = []; for (let i = 0; i < 100; i++) a.push(new Float64Array(1e6)); return a.length }',
    );
    await memoryFailure(
      'const kept = []; for (let i = 0; i < 100; i++) kept.push(new Uint8Array(4e6)); function run() { return kept.length }',
    );
  });

  it('memory a warm sandbox keeps in its globals counts against its runs', async () => {
    const hoarder =
      'var kept = []; function run() { kept.push(new Uint8Array(6e6)); return kept.length }';
    const counts: unknown[] = [];
    for (let i = 0; i < 8; i++) {
      try {
        counts.push(await runCode({ code: hoarder }, {}, SLOW));
      } catch (error) {
        counts.push((error as { type: string }).type);
      }
    }
    // 6 MB a run: the sixth run holds 36 MB of a 32 MiB limit; the sandbox is then fresh.
    expect(counts).toEqual([1, 2, 3, 4, 5, 'code_memory', 1, 2]);
  });
});

describe('the WebAssembly heap a run over the limit grew', () => {
  it('goes with its instance; the next run gets a fresh one', async () => {
    const sandboxes = new JavaScriptSandboxes();
    const first = await sandboxes.load();
    const run = () =>
      sandboxes.run({
        source:
          'function run() { const a = []; for (let i = 0; i < 200; i++) a.push(new Float64Array(1e6)); return a.length }',
        input: null,
        nowMs: Date.now(),
        root: '$NODE.c',
        tenant: 't',
        cpuMs: 20_000,
        memoryBytes: 32 * 1024 * 1024,
        outputBytes: 1024 * 1024,
      });
    await expect(Promise.resolve().then(run)).rejects.toMatchObject({ code: 'code_memory' });
    const fresh = await sandboxes.load();
    expect(fresh).not.toBe(first);
    expect(fresh.heap.bytes).toBe(16 * 1024 * 1024);
    sandboxes.dispose();
    await stillHealthy();
  });

  it("is given back to the system: the process's RSS returns within 20% of where it started", () => {
    // A child process through dist (`npm run build` first). With --expose-gc the backend asks
    // V8 to collect the dropped instance at once; without it V8's memory reducer does, seconds
    // later.
    const script = fileURLToPath(new URL('./fixtures/memory-rss.mjs', import.meta.url));
    const output = execFileSync(process.execPath, ['--expose-gc', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const figures = JSON.parse(output) as {
      outcome: string;
      startKb: number;
      peakKb: number;
      afterKb: number;
      next: unknown;
    };
    console.log(`RSS (KB): ${output.trim()}`);
    expect(figures.outcome).toBe('code_memory');
    expect(figures.afterKb).toBeLessThanOrEqual(figures.startKb * 1.2);
    expect(figures.next).toBe(42);
  });
});
