import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { CodeError, CodeMemoryError, CodeTimeoutError } from '../../errors/code-errors.js';
import type { QuickJSInstance } from './quickjs-loader.js';
import { describeThrown, parseAnswer, type SandboxAnswer } from './sandbox-answer.js';
import { sandboxScript } from './sandbox-script.js';
import type { WasmHeap } from './wasm-heap.js';

/**
 * One QuickJS runtime and context holding one piece of user code, compiled once and called
 * per run. A runtime per sandbox, because QuickJS limits memory per runtime: each run gets
 * the whole `memoryBytes`, whatever other code nodes hold.
 *
 * The context has only the language's intrinsics: no `process`, `require`, module loader,
 * file system, network, timers or console (quickjs-emscripten adds none of them unless asked,
 * and we never ask). CPU time is enforced by QuickJS's interrupt handler, which it polls while
 * interpreting, so `while (true) {}` ends; the native stack by the runtime's limit; memory by
 * metering the WebAssembly heap (see "Memory" below).
 *
 * Runs are synchronous: there are no timers or I/O inside, so an async `run` settles when the
 * pending jobs are drained, in the same call.
 */

export interface SandboxRun {
  inputText: string;
  /** The run's clock time, which `Date.now()` and `new Date()` read inside. */
  nowMs: number;
  /** Where the result will be stored, for StateSerializationError paths (`$NODE.calc`). */
  root: string;
  cpuMs: number;
  memoryBytes: number;
  maxChars: number;
}

/**
 * QuickJS's recursion limit, bytes of native stack. WebAssembly frames live on the host's
 * stack: much more and a deep recursion overflows V8's stack (a trap that poisons the whole
 * WebAssembly instance) before QuickJS notices. 128 KiB allows some 500 nested calls.
 */
export const SANDBOX_STACK_BYTES = 128 * 1024;

/**
 * Memory. QuickJS's own limit is not used: this build counts 8 bytes per allocation whatever
 * its size (wasm-heap.ts), so typed arrays and big strings passed it. A run is held to
 * `memoryBytes` by measuring what its runtime holds (`computeMemoryUsage`: objects, array
 * elements, the strings they hold, ArrayBuffer contents), a walk of every object (~60 µs for
 * a small sandbox):
 * - when the prelude's metered builtins have allocated another sixteenth of the limit in
 *   ArrayBuffer contents (sandbox/prelude.js), or its string budget is spent;
 * - every USAGE_POLL_MS while the run goes on (QuickJS polls the interrupt handler every
 *   ~10,000 branches);
 * - at the end of a run that lasted USAGE_CHECK_MS or grew the heap (a shorter one that fits
 *   in free heap cannot have written much: zeroing memory alone runs at ~18 GB/s).
 * And a gate on the shared heap's growth for what is not measured in time: while a run holds
 * it, the heap may grow by `memoryBytes` plus a reserve, no more. The reserve keeps an honest
 * run near its limit from being refused for growth it needs: an array being copied to a bigger
 * one exists twice for a moment, and emscripten grows the heap by at least 5% of its size.
 * Either ends the run `code_memory`, even when the code catches the out-of-memory error: the
 * handler interrupts it (an interrupt cannot be caught), and the host checks again at the end.
 */
const USAGE_POLL_MS = 5;
const USAGE_CHECK_MS = 1;
const MEASURE_GRACE_MS = 1;
const MIN_RESERVE_BYTES = 8 * 1024 * 1024;

// Statement-level `import`/`export` make the code a module (`export default function`);
// a dynamic `import(...)` does not, and fails at run time: there is no module loader.
const MODULE_SYNTAX = /(?:^|[\n;{}])\s*(?:export\s|import\s*[\w{*'"])/;

export function isModuleSource(source: string): boolean {
  return MODULE_SYNTAX.test(source);
}

export class QuickJSSandbox {
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #heap: WasmHeap;
  #invoke: QuickJSHandle | undefined;
  #deadline = Infinity;
  #interrupted = false;
  #overMemory = false;
  #memoryLimit = Infinity;
  #startedAt = 0;
  #heapAtStart = 0;
  /** When the interrupt handler measures next; time spent measuring this run; one's cost. */
  #pollFrom = Infinity;
  #measuredMs = 0;
  #measureCostMs = 0;
  #settings = '';
  /** False once a run hit a limit: its globals may be half-written, so it is not reused. */
  reusable = true;

  private constructor(context: QuickJSContext, heap: WasmHeap) {
    // A context made by the module is its runtime's own, which `computeMemoryUsage` then
    // uses instead of making one more.
    this.#context = context;
    this.#runtime = context.runtime;
    this.#heap = heap;
    this.#runtime.setMaxStackSize(SANDBOX_STACK_BYTES);
    this.#runtime.setInterruptHandler(() => {
      if (this.#overMemory) return true;
      const now = performance.now();
      if (now > this.#deadline) {
        this.#interrupted = true;
        return true;
      }
      if (now < this.#pollFrom) return false;
      this.#pollFrom = now + USAGE_POLL_MS;
      return this.#overLimit();
    });
  }

  /** Compiles `source` and finds its `run`; throws CodeError (and frees everything) if it cannot. */
  static create(
    instance: QuickJSInstance,
    source: string,
    limits: { cpuMs: number; memoryBytes: number },
  ): QuickJSSandbox {
    const sandbox = new QuickJSSandbox(instance.module.newContext(), instance.heap);
    try {
      sandbox.#prepare(source, limits);
      return sandbox;
    } catch (error) {
      sandbox.dispose();
      throw error;
    }
  }

  run(call: SandboxRun): SandboxAnswer {
    const ctx = this.#context;
    this.#arm(call.cpuMs, call.memoryBytes);
    try {
      const requestText = `[${call.nowMs},${Date.now() + call.cpuMs},${call.inputText}]`;
      // The prelude keeps root and limits between runs: they are sent only when they change.
      const settings = `${call.root}\u0000${call.maxChars}\u0000${call.memoryBytes}`;
      const args = [ctx.newString(requestText)];
      if (settings !== this.#settings) {
        args.push(
          ctx.newString(call.root),
          ctx.newNumber(call.maxChars),
          // The prelude's string budget, in characters (two bytes each at most).
          ctx.newNumber(call.memoryBytes / 2),
        );
      }
      let answer: QuickJSHandle;
      try {
        answer = this.#unwrap(ctx.callFunction(this.#invoke!, ctx.undefined, args));
        this.#settings = settings;
      } finally {
        for (const arg of args) arg.dispose();
      }
      const text = this.#settle(answer, 'run');
      this.#drainJobs();
      this.#checkEnd();
      return parseAnswer(text);
    } catch (error) {
      if (!(error instanceof CodeError)) this.reusable = false;
      throw error;
    } finally {
      this.#disarm();
    }
  }

  dispose(): void {
    // A retired heap goes whole after this run (javascript-sandboxes.ts): freeing into it is
    // wasted, and may abort (see #drainJobs).
    if (this.#heap.retired) return;
    this.#invoke?.dispose();
    this.#invoke = undefined;
    // The context owns its runtime (module.newContext): freeing it frees both.
    this.#context.dispose();
  }

  #prepare(source: string, limits: { cpuMs: number; memoryBytes: number }): void {
    const ctx = this.#context;
    // Top-level code runs here, under the same limits as a run.
    this.#arm(limits.cpuMs, limits.memoryBytes);
    try {
      const makeInvoker = this.#setUp(limits.memoryBytes);
      try {
        const run = this.#findRun(source);
        try {
          this.#invoke = this.#unwrap(ctx.callFunction(makeInvoker, ctx.undefined, run));
        } finally {
          run.dispose();
        }
      } finally {
        makeInvoker.dispose();
      }
      this.#checkEnd();
    } finally {
      this.#disarm();
    }
  }

  /** Evaluates the codec and the prelude, and installs its metering; answers its `makeInvoker`. */
  #setUp(memoryBytes: number): QuickJSHandle {
    const ctx = this.#context;
    const codec = this.#unwrap(ctx.evalCode(sandboxScript('codec'), 'plaita-codec.js'));
    try {
      const setup = this.#unwrap(ctx.evalCode(sandboxScript('prelude'), 'plaita-prelude.js'));
      // meter() measures; meter(true) says a budget of the prelude is spent (sandbox/prelude.js).
      const meter = ctx.newFunction('meter', (...args) => {
        if (args.length > 0) this.#overMemory = true;
        return this.#overLimit() ? ctx.true : ctx.false;
      });
      const budget = ctx.newNumber(memoryBytes / 2);
      try {
        return this.#unwrap(ctx.callFunction(setup, ctx.undefined, codec, meter, budget));
      } finally {
        budget.dispose();
        meter.dispose();
        setup.dispose();
      }
    } finally {
      codec.dispose();
    }
  }

  /** Evaluates the user's code once and returns its `run` (or its default export). */
  #findRun(source: string): QuickJSHandle {
    const ctx = this.#context;
    const module = isModuleSource(source);
    const evaluated = this.#unwrap(
      ctx.evalCode(source, module ? 'code.mjs' : 'code.js', { type: module ? 'module' : 'global' }),
    );
    let found: QuickJSHandle;
    if (module) {
      const exports = this.#settleHandle(evaluated);
      try {
        found = ctx.getProp(exports, 'default');
        if (ctx.typeof(found) !== 'function') {
          found.dispose();
          found = ctx.getProp(exports, 'run');
        }
      } finally {
        exports.dispose();
      }
    } else {
      evaluated.dispose();
      // `function run` and `const run` both live in the global scope a later script sees.
      found = this.#unwrap(
        ctx.evalCode('typeof run === "function" ? run : undefined', 'plaita-lookup.js'),
      );
    }
    if (ctx.typeof(found) !== 'function') {
      found.dispose();
      throw new CodeError(
        module
          ? 'the code exports no function: write `export default function (input) { … }`'
          : 'the code defines no function `run`: write `function run(input) { … }`',
        { retryable: false },
      );
    }
    return found;
  }

  /** A value handle, or the value a promise handle settled to (pending jobs drained). */
  #settleHandle(handle: QuickJSHandle): QuickJSHandle {
    const ctx = this.#context;
    let state = ctx.getPromiseState(handle);
    if (state.type === 'fulfilled' && state.notAPromise) return handle;
    try {
      if (state.type === 'pending') {
        this.#drainJobs();
        state = ctx.getPromiseState(handle);
      }
      if (state.type === 'fulfilled') return state.value;
      if (state.type === 'rejected') throw this.#failure(state.error);
      throw new CodeError(
        'the promise returned by the code never settled: there are no timers or I/O in the sandbox',
      );
    } finally {
      handle.dispose();
    }
  }

  #settle(handle: QuickJSHandle, what: string): string {
    const ctx = this.#context;
    // The common case, a synchronous run: one call across the boundary instead of three.
    if (ctx.typeof(handle) === 'string') {
      try {
        return ctx.getString(handle);
      } finally {
        handle.dispose();
      }
    }
    const value = this.#settleHandle(handle);
    try {
      if (ctx.typeof(value) !== 'string') throw new CodeError(`${what} answered no result`);
      return ctx.getString(value);
    } finally {
      value.dispose();
    }
  }

  #drainJobs(): void {
    while (this.#runtime.hasPendingJob()) {
      const before = this.#heap.bytes;
      const result = this.#runtime.executePendingJobs();
      // quickjs-emscripten reads the job's context from a view of the heap taken before the
      // call: when a job grew the heap, that view is detached, and it makes a context of its
      // own that nothing frees (freeing the runtime then aborts). The answer is still right;
      // the instance goes after this run.
      if (this.#heap.bytes !== before) this.#heap.retired = true;
      if (result.error) throw this.#failure(result.error);
      if (this.#overMemory) throw this.#memoryError();
    }
  }

  #unwrap(result: {
    error?: QuickJSHandle | undefined;
    value?: QuickJSHandle | undefined;
  }): QuickJSHandle {
    if (result.error) throw this.#failure(result.error);
    // The code caught the out-of-memory error the refused heap growth raised, and went on:
    // nothing it answers is read.
    if (this.#overMemory) {
      result.value!.dispose();
      throw this.#memoryError();
    }
    return result.value!;
  }

  /** At the end of a run: a last look at its memory when it may have used much (see Memory). */
  #checkEnd(): void {
    const long = performance.now() - this.#startedAt >= USAGE_CHECK_MS;
    if ((long || this.#heap.bytes > this.#heapAtStart) && this.#overLimit())
      throw this.#memoryError();
  }

  /**
   * Whether the runtime holds more than the limit (and the run is then over memory). Measuring
   * walks every object and array element (~60 µs for a small sandbox, 30 ms for an array of
   * four million numbers), so a measurement is skipped, the last answer standing, when it
   * would take the run's time spent measuring past a tenth of the run so far (after a grace of
   * MEASURE_GRACE_MS). What one costs is estimated from the last ones, and a measurement that
   * took far longer than that (the thread was descheduled) is charged at four times it.
   */
  #overLimit(): boolean {
    if (this.#overMemory) return true;
    const started = performance.now();
    const allowedMs = (started - this.#startedAt) / 10 + MEASURE_GRACE_MS;
    if (this.#measuredMs + this.#measureCostMs > allowedMs) return false;
    let used: number;
    try {
      used = this.#usedBytes();
    } catch {
      // Reading it needs a little memory too; a refusal has set #overMemory.
      return this.#overMemory;
    }
    const took = performance.now() - started;
    const estimate = this.#measureCostMs;
    this.#measuredMs += estimate > 0 ? Math.min(took, 4 * estimate) : took;
    this.#measureCostMs = estimate > 0 ? Math.min(took, 2 * estimate) : took;
    if (used > this.#memoryLimit) this.#overMemory = true;
    return this.#overMemory;
  }

  #usedBytes(): number {
    const usage = this.#runtime.computeMemoryUsage();
    try {
      const used = this.#context.getProp(usage, 'memory_used_size');
      try {
        return this.#context.getNumber(used);
      } finally {
        used.dispose();
      }
    } finally {
      usage.dispose();
    }
  }

  #memoryError(): CodeMemoryError {
    this.reusable = false;
    // What the heap grew by for a run over its limit is given back now, not kept for reuse.
    if (this.#heap.bytes > this.#heapAtStart) this.#heap.retired = true;
    const mib = Math.round((this.#memoryLimit / 1024 / 1024) * 10) / 10;
    return new CodeMemoryError(`the code ran out of memory (the limit is ${mib} MiB)`);
  }

  /** A Code*Error for an exception handle (which it frees). */
  #failure(errorHandle: QuickJSHandle): Error {
    let dumped: unknown;
    try {
      dumped = this.#context.dump(errorHandle);
    } catch {
      dumped = undefined;
    } finally {
      errorHandle.dispose();
    }
    const { name, message, stack } = describeThrown(dumped);
    if (this.#overMemory) return this.#memoryError();
    if (this.#interrupted || (name === 'InternalError' && message === 'interrupted')) {
      this.reusable = false;
      return new CodeTimeoutError('the code ran out of CPU time');
    }
    if (name === 'InternalError' && (message === 'out of memory' || message === 'string too long'))
      return this.#memoryError();
    if (name === 'InternalError' && message === 'stack overflow') {
      return new CodeError('stack overflow: the code recursed too deeply');
    }
    const where = /code\.m?js:(\d+):(\d+)/.exec(stack);
    const position = where ? { line: Number(where[1]), column: Number(where[2]) } : {};
    const at = where ? ` (line ${where[1]}, column ${where[2]})` : '';
    return new CodeError(`${name ? `${name}: ` : ''}${message}${at}`, position);
  }

  #arm(cpuMs: number, memoryBytes: number): void {
    const now = performance.now();
    this.#interrupted = false;
    this.#overMemory = false;
    this.#memoryLimit = memoryBytes;
    this.#startedAt = now;
    this.#deadline = now + cpuMs;
    this.#pollFrom = now + USAGE_POLL_MS;
    this.#measuredMs = 0;
    this.#heapAtStart = this.#heap.bytes;
    const reserve = Math.max(memoryBytes / 4, MIN_RESERVE_BYTES) + this.#heapAtStart / 16;
    this.#heap.close(this.#heapAtStart + memoryBytes + reserve, () => {
      this.#overMemory = true;
    });
  }

  #disarm(): void {
    this.#deadline = Infinity;
    this.#pollFrom = Infinity;
    this.#heap.open();
  }
}
