import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import {
  CodeError,
  CodeMemoryError,
  CodeOutputTooLargeError,
  CodeTimeoutError,
  StateSerializationError,
} from '../../errors.js';
import { decodeValue, encodeValue } from '../../state/codec.js';
import type { MaybePromise } from '../../util/maybe-promise.js';
import { discardQuickJS, heapOf, loadQuickJS, quickJSNow } from './quickjs-module.js';
import { QuickJSSandbox } from './quickjs-sandbox.js';
import type { SandboxAnswer } from './sandbox-answer.js';
import { SandboxPool } from './sandbox-pool.js';

/** One call of JavaScript code (the `quickjs` backend). */
export interface JavaScriptRun {
  source: string;
  input: unknown;
  /** The execution's clock time: what `Date.now()` answers inside. */
  nowMs: number;
  /** Where the result is stored, for the path of a StateSerializationError (`$NODE.calc`). */
  root: string;
  /** Sandboxes are never shared between tenants. */
  tenant: string;
  cpuMs: number;
  memoryBytes: number;
  outputBytes: number;
}

/** Per WebAssembly instance, per tenant: sandboxes are never shared between tenants. */
const pools = new WeakMap<QuickJSWASMModule, Map<string, SandboxPool>>();

/**
 * Runs `run(input)` of `source` in a warm sandbox and returns its result, decoded by the state
 * codec. Synchronous once the WebAssembly module is loaded (the first call may wait for it).
 */
export function runJavaScript(run: JavaScriptRun): MaybePromise<unknown> {
  const module = quickJSNow();
  if (module === undefined) return loadQuickJS().then((loaded) => runIn(loaded, run));
  return runIn(module, run);
}

/** Frees every warm sandbox (tests, and hosts shutting down cleanly). */
export function clearJavaScriptSandboxes(): void {
  const module = quickJSNow();
  for (const pool of (module && pools.get(module)?.values()) || []) pool.clear();
}

/** How many sandboxes are warm (for tests and the benchmark). */
export function warmJavaScriptSandboxes(): number {
  const module = quickJSNow();
  let count = 0;
  for (const pool of (module && pools.get(module)?.values()) || []) count += pool.size;
  return count;
}

function runIn(module: QuickJSWASMModule, run: JavaScriptRun): unknown {
  // Input the codec cannot store cannot cross either: StateSerializationError, as for state.
  return decodeAnswer(
    answerIn(module, { ...run, inputText: encodeValue(run.input, 'input') }),
    run,
  );
}

/** One call as it crosses to a sandbox: the input already encoded (it may cross a thread). */
export interface SandboxRequest {
  source: string;
  inputText: string;
  nowMs: number;
  root: string;
  tenant: string;
  cpuMs: number;
  memoryBytes: number;
  outputBytes: number;
}

/** The sandbox's answer to `request`, the result still encoded (code-thread.ts calls it). */
export function answerJavaScript(request: SandboxRequest): MaybePromise<SandboxAnswer> {
  const module = quickJSNow();
  if (module === undefined) return loadQuickJS().then((loaded) => answerIn(loaded, request));
  return answerIn(module, request);
}

function answerIn(module: QuickJSWASMModule, run: SandboxRequest): SandboxAnswer {
  const pool = poolOf(module, run.tenant);
  // The source itself is the key: the same string object every run, so its hash is cached.
  const key = run.source;
  let sandbox: QuickJSSandbox | undefined;
  let answer: SandboxAnswer;
  try {
    sandbox = pool.acquire(key, () => QuickJSSandbox.create(module, run.source, run));
    answer = sandbox.run({
      inputText: run.inputText,
      nowMs: run.nowMs,
      root: run.root,
      cpuMs: run.cpuMs,
      memoryBytes: run.memoryBytes,
      maxChars: run.outputBytes,
    });
  } catch (error) {
    if (isSandboxFailure(error) && freed(pool, key, sandbox)) {
      retireIfSpent(module);
      throw error;
    }
    // Anything else escaped the WebAssembly instance mid-call (a trap, e.g. the host's stack
    // overflowing), or freeing the failed sandbox did: the instance's memory cannot be trusted,
    // so it and every tenant's sandboxes in it are dropped — never freed: freeing a runtime a
    // trap left half-unwound aborts inside the instance.
    drop(module);
    throw new CodeError(`the JavaScript sandbox failed: ${String(error)}`, { cause: error });
  }
  retireIfSpent(module);
  // Code that keeps data in its globals holds it between runs, in the one WebAssembly heap
  // every tenant's sandboxes share: kept warm, enough of them starve every other run of
  // memory. Past the ceiling they all go, and their memory serves the runs that come next.
  // Reading the process size costs ~10 µs, a warm run ~25: it is read at most every
  // WARM_CHECK_MS.
  const now = performance.now();
  if (now >= warmCheckFrom) {
    warmCheckFrom = now + WARM_CHECK_MS;
    heapCeilingBytes = heapCeiling();
    if (process.memoryUsage.rss() > warmRssCeiling())
      for (const tenantPool of pools.get(module)?.values() ?? []) tenantPool.clear();
  }
  return answer;
}

/**
 * After a run: a heap that is retired (wasm-heap.ts), or grew past what an instance may keep,
 * goes with its instance and every sandbox in it (WebAssembly memory cannot shrink; V8 frees
 * it once the instance is unreachable), and a fresh one starts loading.
 */
function retireIfSpent(module: QuickJSWASMModule): void {
  const heap = heapOf(module);
  if (!heap.retired && heap.bytes <= heapCeilingBytes) return;
  drop(module);
  void loadQuickJS().catch(() => undefined);
}

/** Forgets `module` and every tenant's sandboxes in it, without freeing them (see runIn). */
function drop(module: QuickJSWASMModule): void {
  for (const tenantPool of pools.get(module)?.values() ?? []) tenantPool.abandon();
  pools.delete(module);
  discardQuickJS(module);
  collectSoon();
}

/**
 * A dropped instance's memory goes back to the system at V8's next full collection, which
 * V8 runs by itself some seconds later (its memory reducer, after a quiet spell; 8-25 s
 * measured). A host started with `--expose-gc` gets it at once: the collection is asked for
 * when the current call has let go of the instance, at most once every GC_EVERY_MS.
 */
function collectSoon(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const now = performance.now();
  if (gc === undefined || now < gcFrom) return;
  gcFrom = now + GC_EVERY_MS;
  setTimeout(gc, 0).unref();
}

const GC_EVERY_MS = 1000;
let gcFrom = 0;

/**
 * `PLAITA_CODE_HEAP_MB` (default 128): the largest WebAssembly heap kept after a run. Enough for
 * 512 warm sandboxes (~100 KB each) and a run near its limit; a heap past it is dropped.
 */
function heapCeiling(): number {
  const mb = Number(process.env.PLAITA_CODE_HEAP_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 128) * 1024 * 1024;
}

/** Read with the process size, every WARM_CHECK_MS: the environment costs a call into C++. */
let heapCeilingBytes = heapCeiling();

function poolOf(module: QuickJSWASMModule, tenant: string): SandboxPool {
  let tenants = pools.get(module);
  if (tenants === undefined) {
    tenants = new Map();
    pools.set(module, tenants);
  }
  let pool = tenants.get(tenant);
  if (pool !== undefined) {
    // Least recently used tenant first, as in SandboxPool.
    tenants.delete(tenant);
    tenants.set(tenant, pool);
    return pool;
  }
  pool = new SandboxPool(POOL_CAPACITY);
  tenants.set(tenant, pool);
  if (tenants.size > MAX_TENANTS) {
    const [oldest, evicted] = tenants.entries().next().value as [string, SandboxPool];
    tenants.delete(oldest);
    evicted.clear();
  }
  return pool;
}

// Warm sandboxes per tenant, and tenants kept warm: at most 512 QuickJS runtimes of ~150 KB
// each (more while they hold data) stay alive between runs.
const POOL_CAPACITY = 32;
const MAX_TENANTS = 16;

const WARM_CHECK_MS = 50;
let warmCheckFrom = 0;

/** `PLAITA_CODE_WARM_RSS_MB` (default 1024): past this process size no sandbox stays warm. */
function warmRssCeiling(): number {
  const mb = Number(process.env.PLAITA_CODE_WARM_RSS_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 1024) * 1024 * 1024;
}

/** Frees a sandbox that cannot run again; false when freeing it failed (the instance is suspect). */
function freed(pool: SandboxPool, key: string, sandbox: QuickJSSandbox | undefined): boolean {
  if (sandbox === undefined || sandbox.reusable) return true;
  try {
    pool.discard(key);
    return true;
  } catch {
    return false;
  }
}

function isSandboxFailure(error: unknown): boolean {
  return (
    error instanceof CodeError ||
    error instanceof CodeTimeoutError ||
    error instanceof CodeMemoryError
  );
}

/** The run's result from the sandbox's answer (on the calling thread: it builds the value). */
export function decodeAnswer(answer: SandboxAnswer, run: { outputBytes: number }): unknown {
  switch (answer.kind) {
    case 'value':
      // The sandbox counts UTF-16 characters; the limit is of encoded bytes, as for Python
      // (at most 3 per character: a shorter text needs no count).
      if (answer.text.length > run.outputBytes / 3) {
        const bytes = Buffer.byteLength(answer.text);
        if (bytes > run.outputBytes)
          throw new CodeOutputTooLargeError(
            `the result is ${bytes} bytes once encoded, over the limit of ${run.outputBytes}`,
          );
      }
      try {
        return decodeValue(answer.text);
      } catch (error) {
        throw new CodeError('the sandbox returned a result the codec cannot read', {
          cause: error,
          retryable: false,
        });
      }
    case 'unstorable':
      throw new StateSerializationError(answer.path, answer.valueType);
    case 'too_large':
      throw new CodeOutputTooLargeError(
        `the result is ${answer.chars} characters once encoded, over the limit of ${run.outputBytes}`,
      );
  }
}
