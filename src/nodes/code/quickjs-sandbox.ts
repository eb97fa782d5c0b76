import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { CodeError, CodeMemoryError, CodeTimeoutError } from '../../errors.js';
import { SANDBOX_PRELUDE } from './sandbox-prelude.js';

/**
 * One QuickJS runtime and context holding one piece of user code, compiled once and called
 * per run. A runtime per sandbox, because QuickJS limits memory per runtime: each run gets
 * the whole `memoryBytes`, whatever other code nodes hold.
 *
 * The context has only the language's intrinsics: no `process`, `require`, module loader,
 * file system, network, timers or console (quickjs-emscripten adds none of them unless asked,
 * and we never ask). CPU time is enforced by QuickJS's interrupt handler, which it polls while
 * interpreting, so `while (true) {}` ends; memory and native stack by the runtime's limits.
 *
 * Runs are synchronous: there are no timers or I/O inside, so an async `run` settles when the
 * pending jobs are drained, in the same call.
 */

/** What a run answered (see sandbox-prelude.ts). Failures are thrown as Code*Error. */
export type SandboxAnswer =
  | { kind: 'value'; text: string }
  | { kind: 'unstorable'; path: string; valueType: string }
  | { kind: 'too_large'; chars: number };

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

/** Least growth of the process's RSS during one run that the watchdog tolerates. */
const RSS_HEADROOM_BYTES = 64 * 1024 * 1024;
const RSS_POLL_MS = 5;

// Statement-level `import`/`export` make the code a module (`export default function`);
// a dynamic `import(...)` does not, and fails at run time: there is no module loader.
const MODULE_SYNTAX = /(?:^|[\n;{}])\s*(?:export\s|import\s*[\w{*'"])/;

export function isModuleSource(source: string): boolean {
  return MODULE_SYNTAX.test(source);
}

export class QuickJSSandbox {
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  #invoke: QuickJSHandle | undefined;
  #deadline = Infinity;
  #interrupted = false;
  #rssCeiling = Infinity;
  #rssHeadroom = RSS_HEADROOM_BYTES;
  #rssFrom = Infinity;
  #overMemory = false;
  #memoryLimit = -1;
  #settings = '';
  /** False once a run hit a limit: its globals may be half-written, so it is not reused. */
  reusable = true;

  private constructor(runtime: QuickJSRuntime) {
    this.#runtime = runtime;
    this.#runtime.setMaxStackSize(SANDBOX_STACK_BYTES);
    this.#runtime.setInterruptHandler(() => {
      if (performance.now() > this.#deadline) {
        this.#interrupted = true;
        return true;
      }
      // Short runs never read RSS: only from RSS_POLL_MS on, and then every RSS_POLL_MS.
      // A safety net for memory QuickJS does not charge to its limit (see the prelude): the
      // process cannot grow otherwise while a run holds the thread. The baseline is read at
      // the first poll, not per run: reading RSS costs more than a whole short run.
      const now = performance.now();
      if (now < this.#rssFrom) return false;
      this.#rssFrom = now + RSS_POLL_MS;
      const rss = process.memoryUsage.rss();
      if (Number.isNaN(this.#rssCeiling)) this.#rssCeiling = rss + this.#rssHeadroom;
      else if (rss > this.#rssCeiling) {
        this.#overMemory = true;
        return true;
      }
      return false;
    });
    this.#context = runtime.newContext();
  }

  /** Compiles `source` and finds its `run`; throws CodeError (and frees everything) if it cannot. */
  static create(
    module: QuickJSWASMModule,
    source: string,
    limits: { cpuMs: number; memoryBytes: number },
  ): QuickJSSandbox {
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    let sandbox: QuickJSSandbox | undefined;
    try {
      sandbox = new QuickJSSandbox(runtime);
      sandbox.#prepare(source, limits.cpuMs);
      return sandbox;
    } catch (error) {
      if (sandbox) sandbox.dispose();
      else runtime.dispose();
      throw error;
    }
  }

  run(call: SandboxRun): SandboxAnswer {
    const ctx = this.#context;
    if (call.memoryBytes !== this.#memoryLimit) {
      this.#memoryLimit = call.memoryBytes;
      this.#runtime.setMemoryLimit(call.memoryBytes);
    }
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
      return parseAnswer(text);
    } catch (error) {
      if (!(error instanceof CodeError)) this.reusable = false;
      throw error;
    } finally {
      this.#disarm();
    }
  }

  dispose(): void {
    this.#invoke?.dispose();
    this.#invoke = undefined;
    this.#context.dispose();
    this.#runtime.dispose();
  }

  #prepare(source: string, cpuMs: number): void {
    const ctx = this.#context;
    this.#arm(cpuMs);
    try {
      const makeInvoker = this.#unwrap(ctx.evalCode(SANDBOX_PRELUDE, 'plaita-prelude.js'));
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
    } finally {
      this.#disarm();
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
      const result = this.#runtime.executePendingJobs();
      if (result.error) throw this.#failure(result.error);
    }
  }

  #unwrap(result: {
    error?: QuickJSHandle | undefined;
    value?: QuickJSHandle | undefined;
  }): QuickJSHandle {
    if (result.error) throw this.#failure(result.error);
    return result.value!;
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
    if (this.#overMemory) {
      this.reusable = false;
      return new CodeMemoryError('the code ran out of memory (the process grew past its ceiling)');
    }
    if (this.#interrupted || (name === 'InternalError' && message === 'interrupted')) {
      this.reusable = false;
      return new CodeTimeoutError('the code ran out of CPU time');
    }
    if (
      name === 'InternalError' &&
      (message === 'out of memory' || message === 'string too long')
    ) {
      this.reusable = false;
      return new CodeMemoryError('the code ran out of memory');
    }
    if (name === 'InternalError' && message === 'stack overflow') {
      return new CodeError('stack overflow: the code recursed too deeply');
    }
    const where = /code\.m?js:(\d+):(\d+)/.exec(stack);
    const position = where ? { line: Number(where[1]), column: Number(where[2]) } : {};
    const at = where ? ` (line ${where[1]}, column ${where[2]})` : '';
    return new CodeError(`${name ? `${name}: ` : ''}${message}${at}`, position);
  }

  #arm(cpuMs: number, memoryBytes = RSS_HEADROOM_BYTES): void {
    this.#interrupted = false;
    this.#overMemory = false;
    this.#deadline = performance.now() + cpuMs;
    this.#rssCeiling = NaN;
    this.#rssFrom = performance.now() + RSS_POLL_MS;
    this.#rssHeadroom = Math.max(2 * memoryBytes, RSS_HEADROOM_BYTES);
  }

  #disarm(): void {
    this.#deadline = Infinity;
    this.#rssCeiling = Infinity;
  }
}

function describeThrown(dumped: unknown): { name: string; message: string; stack: string } {
  if (typeof dumped === 'object' && dumped !== null && 'message' in dumped) {
    const { name, message, stack } = dumped as {
      name?: unknown;
      message?: unknown;
      stack?: unknown;
    };
    return {
      name: typeof name === 'string' ? capped(name, 200) : 'Error',
      message: capped(String(message), MAX_MESSAGE_CHARS),
      stack: typeof stack === 'string' ? stack.slice(0, MAX_MESSAGE_CHARS) : '',
    };
  }
  let text: string;
  try {
    text = typeof dumped === 'string' ? dumped : (JSON.stringify(dumped) ?? String(dumped));
  } catch {
    text = String(dumped);
  }
  return { name: '', message: `the code threw ${capped(text, MAX_MESSAGE_CHARS)}`, stack: '' };
}

/**
 * The longest error message kept from the code: it becomes the execution's stored error, and a
 * results cap (codeOutputBytes) means little if a thrown message of megabytes goes through.
 */
const MAX_MESSAGE_CHARS = 4096;

function capped(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function parseAnswer(text: string): SandboxAnswer {
  const body = text.slice(1);
  switch (text[0]) {
    case 'v':
      return { kind: 'value', text: body };
    case 'o':
      return { kind: 'too_large', chars: Number(body) };
    case 'u': {
      const [path, valueType] = JSON.parse(body) as [string, string];
      return { kind: 'unstorable', path, valueType };
    }
    default:
      throw new CodeError('the sandbox answered something unexpected', { retryable: false });
  }
}
