import { beforeAll, describe, expect, it } from 'vitest';
import { runFlow } from '../../../src/index.js';
import { loadQuickJS } from '../../../src/nodes/code/code-runtime.js';
import { codeFlow, failure, runCode } from './code-flow-support.js';

beforeAll(async () => {
  await loadQuickJS();
});

/** The sandbox reports what it sees; nothing of the host is there. */
describe('escape attempts fail inside the sandbox', () => {
  it('there is no process, require, fetch, timers, console or module loader', async () => {
    const code = `function run() {
      return [typeof process, typeof require, typeof globalThis.fetch, typeof setTimeout,
        typeof setInterval, typeof queueMicrotask, typeof console, typeof module, typeof Buffer,
        typeof XMLHttpRequest, typeof WebAssembly, typeof std, typeof os];
    }`;
    expect(await runCode({ code })).toEqual(Array(13).fill('undefined'));
  });

  it('the Function constructor reaches only the sandbox', async () => {
    const code = `function run() {
      // The classic escape: this.constructor.constructor('return process')()
      const viaCtor = (this || globalThis).constructor.constructor('return typeof process')();
      const viaFn = (function () {}).constructor('return typeof process')();
      const viaGlobal = typeof Function('return globalThis.process')();
      try { Function('return process')(); } catch (e) { if (!(e instanceof ReferenceError)) throw e; }
      return [viaCtor, viaFn, viaGlobal];
    }`;
    expect(await runCode({ code })).toEqual(['undefined', 'undefined', 'undefined']);
  });

  it("import('fs') is rejected, a static import does not load", async () => {
    const dynamic = await failure(
      runCode({ code: 'async function run() { const fs = await import("fs"); return typeof fs }' }),
    );
    expect(dynamic).toMatchObject({ type: 'code_error' });
    expect((dynamic.originalError as Error).message).toContain("could not load module 'fs'");
    // A static import cannot even load: the compile at load resolves it, and there is no loader.
    expect(() =>
      codeFlow({ code: 'import fs from "fs";\nexport default function () { return 1 }' }),
    ).toThrow("nodes[1].code: ReferenceError: could not load module 'fs'");
  });

  it('globalThis holds only the language intrinsics (and the frozen Date)', async () => {
    const names = (await runCode({
      code: 'function run() { return Object.getOwnPropertyNames(globalThis).filter((n) => n !== "run") }',
    })) as string[];
    const hostish = names.filter((n) =>
      /process|require|fetch|timeout|interval|fs|net|os|std/i.test(n),
    );
    expect(hostish).toEqual([]);
    expect(names).toContain('JSON');
  });

  it('a returned __proto__ cannot pollute the host', async () => {
    const result = (await runCode({
      code: `function run() {
        const o = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"bad": 1}}}');
        Object.prototype.inside = 'only here';
        return o;
      }`,
    })) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).inside).toBeUndefined();
    expect(({} as Record<string, unknown>).bad).toBeUndefined();
    expect(Object.getPrototypeOf(result)).not.toHaveProperty('polluted');
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: true });
  });

  it('Date.now cannot time the host: it does not move during a run', async () => {
    const code = `function run() {
      const t0 = Date.now(); let x = 0; for (let i = 0; i < 2e5; i++) x += i; return Date.now() - t0;
    }`;
    expect(await runCode({ code })).toBe(0);
  });

  it('globals a run leaves behind are never seen by another tenant', async () => {
    const code = 'let calls = 0; function run() { return ++calls }';
    const flow = codeFlow({ code });
    expect(await runFlow(flow, {}, { tenantId: 'a' })).toBe(1);
    expect(await runFlow(flow, {}, { tenantId: 'a' })).toBe(2);
    expect(await runFlow(flow, {}, { tenantId: 'b' })).toBe(1);
  });

  it('a growable SharedArrayBuffer cannot read or write past its block', async () => {
    // This QuickJS build grows a SharedArrayBuffer without reallocating it: a view of it then
    // reads and writes past its block, in the heap every tenant's sandboxes share (we found
    // another tenant's strings that way). Grown bytes must read as zeros; these were not.
    const scan = `function run() {
      const buffer = new SharedArrayBuffer(16, { maxByteLength: 1e6 });
      buffer.grow(1e6);
      const bytes = new Uint8Array(buffer);
      for (let i = 16; i < 65536; i++) if (bytes[i] !== 0) return 'foreign data at ' + i;
      return 'zeros';
    }`;
    const error = await failure(runCode({ code: scan }));
    expect(error).toMatchObject({ type: 'code_error' });
    expect((error.originalError as Error).message).toContain(
      "ReferenceError: 'SharedArrayBuffer' is not defined",
    );
  });

  it('after every attempt above, the same flow runs normally', async () => {
    expect(
      await runCode({ code: 'function run(x) { return x.map((n) => n * 2) }', input: [1, 2] }),
    ).toEqual([2, 4]);
  });
});
