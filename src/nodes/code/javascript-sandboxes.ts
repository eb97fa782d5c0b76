import { CodeError, CodeMemoryError, CodeTimeoutError } from '../../errors/code-errors.js';
import { encodeValue } from '../../state/codec.js';
import type { MaybePromise } from '../../util/maybe-promise.js';
import { JavaScriptSyntaxChecker, type SyntaxProblem } from './javascript-syntax.js';
import { QuickJSLoader, type QuickJSInstance } from './quickjs-loader.js';
import { QuickJSSandbox } from './quickjs-sandbox.js';
import { decodeAnswer, type SandboxAnswer } from './sandbox-answer.js';
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

/** One call as it crosses to a sandbox: the input already encoded (it may cross a thread). */
export type SandboxRequest = Omit<JavaScriptRun, 'input'> & { inputText: string };

// Warm sandboxes per tenant, and tenants kept warm: at most 512 QuickJS runtimes of ~150 KB
// each (more while they hold data) stay alive between runs.
const POOL_CAPACITY = 32;
const MAX_TENANTS = 16;
const WARM_CHECK_MS = 50;
const GC_EVERY_MS = 1000;

/**
 * The JavaScript sandboxes of one owner (a CodeRuntime, a code thread, a test): its QuickJS
 * WebAssembly instance, the warm sandboxes in it per tenant, and the syntax checker in it.
 * Nothing is shared with another owner: code that keeps data in its globals sees it again only
 * through the same owner, for the same tenant and code. `dispose()` frees all of it.
 */
export class JavaScriptSandboxes {
  readonly #loader = new QuickJSLoader();
  /** Per WebAssembly instance, per tenant: sandboxes are never shared between tenants. */
  readonly #pools = new WeakMap<QuickJSInstance, Map<string, SandboxPool>>();
  #checker: JavaScriptSyntaxChecker | undefined;
  /** Read with the process size, every WARM_CHECK_MS: the environment costs a call into C++. */
  #heapCeilingBytes = heapCeiling();
  #warmCheckFrom = 0;
  #gcFrom = 0;

  /** Loads the WebAssembly instance up front (the CLI, tests): syntax is checked at load after. */
  load(): Promise<QuickJSInstance> {
    return this.#loader.load();
  }

  /**
   * Runs `run(input)` of `source` in a warm sandbox and returns its result, decoded by the state
   * codec. Synchronous once the WebAssembly instance is loaded (the first call may wait for it).
   */
  run(run: JavaScriptRun): MaybePromise<unknown> {
    const instance = this.#loader.now();
    if (instance === undefined) return this.load().then((loaded) => this.#runIn(loaded, run));
    return this.#runIn(instance, run);
  }

  /** The sandbox's answer to `request`, the result still encoded (code-thread.ts calls it). */
  answer(request: SandboxRequest): MaybePromise<SandboxAnswer> {
    const instance = this.#loader.now();
    if (instance === undefined)
      return this.load().then((loaded) => this.#answerIn(loaded, request));
    return this.#answerIn(instance, request);
  }

  /**
   * The syntax error of `source`, compiled without running it, or null. `undefined` when it
   * cannot tell yet: the WebAssembly instance is still loading (`load()` first for a guaranteed
   * check); the error then surfaces on the first run as a `code_error`.
   */
  checkSyntax(source: string): SyntaxProblem | null | undefined {
    const instance = this.#loader.now();
    if (instance === undefined) return undefined;
    // The checker of a dropped instance goes with it, unfreed (see #drop).
    if (this.#checker?.instance !== instance) this.#checker = new JavaScriptSyntaxChecker(instance);
    return this.#checker.check(source);
  }

  /** How many sandboxes are warm (for tests and the benchmark). */
  get warmCount(): number {
    let count = 0;
    for (const pool of this.#tenantPools()) count += pool.size;
    return count;
  }

  /** Frees every warm sandbox. */
  clear(): void {
    for (const pool of this.#tenantPools()) pool.clear();
  }

  /**
   * Frees every sandbox and the syntax checker, and forgets the instance (a host shutting down,
   * tests); a later run loads a fresh one.
   */
  dispose(): void {
    const instance = this.#loader.current;
    if (instance !== undefined && !instance.heap.retired) {
      this.clear();
      this.#checker?.dispose();
    }
    this.#checker = undefined;
    if (instance !== undefined) this.#pools.delete(instance);
    this.#loader.reset();
  }

  #tenantPools(): Iterable<SandboxPool> {
    const instance = this.#loader.current;
    return (instance && this.#pools.get(instance)?.values()) || [];
  }

  #runIn(instance: QuickJSInstance, run: JavaScriptRun): unknown {
    // Input the codec cannot store cannot cross either: StateSerializationError, as for state.
    const inputText = encodeValue(run.input, 'input');
    return decodeAnswer(this.#answerIn(instance, { ...run, inputText }), run);
  }

  #answerIn(instance: QuickJSInstance, run: SandboxRequest): SandboxAnswer {
    const pool = this.#poolOf(instance, run.tenant);
    // The source itself is the key: the same string object every run, so its hash is cached.
    const key = run.source;
    let sandbox: QuickJSSandbox | undefined;
    let answer: SandboxAnswer;
    try {
      sandbox = pool.acquire(key, () => QuickJSSandbox.create(instance, run.source, run));
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
        this.#retireIfSpent(instance);
        throw error;
      }
      // Anything else escaped the WebAssembly instance mid-call (a trap, e.g. the host's stack
      // overflowing), or freeing the failed sandbox did: the instance's memory cannot be trusted,
      // so it and every tenant's sandboxes in it are dropped — never freed: freeing a runtime a
      // trap left half-unwound aborts inside the instance.
      this.#drop(instance);
      throw new CodeError(`the JavaScript sandbox failed: ${String(error)}`, { cause: error });
    }
    this.#retireIfSpent(instance);
    // Code that keeps data in its globals holds it between runs, in the one WebAssembly heap
    // every tenant's sandboxes share: kept warm, enough of them starve every other run of
    // memory. Past the ceiling they all go, and their memory serves the runs that come next.
    // Reading the process size costs ~10 µs, a warm run ~25: it is read at most every
    // WARM_CHECK_MS.
    const now = performance.now();
    if (now >= this.#warmCheckFrom) {
      this.#warmCheckFrom = now + WARM_CHECK_MS;
      this.#heapCeilingBytes = heapCeiling();
      if (process.memoryUsage.rss() > warmRssCeiling())
        for (const tenantPool of this.#pools.get(instance)?.values() ?? []) tenantPool.clear();
    }
    return answer;
  }

  /**
   * After a run: a heap that is retired (wasm-heap.ts), or grew past what an instance may keep,
   * goes with its instance and every sandbox in it (WebAssembly memory cannot shrink; V8 frees
   * it once the instance is unreachable), and a fresh one starts loading.
   */
  #retireIfSpent(instance: QuickJSInstance): void {
    if (!instance.heap.retired && instance.heap.bytes <= this.#heapCeilingBytes) return;
    this.#drop(instance);
    void this.load().catch(() => undefined);
  }

  /** Forgets `instance` and every tenant's sandboxes in it, without freeing them (see #answerIn). */
  #drop(instance: QuickJSInstance): void {
    for (const tenantPool of this.#pools.get(instance)?.values() ?? []) tenantPool.abandon();
    this.#pools.delete(instance);
    if (this.#checker?.instance === instance) this.#checker = undefined;
    this.#loader.discard(instance);
    this.#collectSoon();
  }

  /**
   * A dropped instance's memory goes back to the system at V8's next full collection, which
   * V8 runs by itself some seconds later (its memory reducer, after a quiet spell; 8-25 s
   * measured). A host started with `--expose-gc` gets it at once: the collection is asked for
   * when the current call has let go of the instance, at most once every GC_EVERY_MS.
   */
  #collectSoon(): void {
    const gc = (globalThis as { gc?: () => void }).gc;
    const now = performance.now();
    if (gc === undefined || now < this.#gcFrom) return;
    this.#gcFrom = now + GC_EVERY_MS;
    setTimeout(gc, 0).unref();
  }

  #poolOf(instance: QuickJSInstance, tenant: string): SandboxPool {
    let tenants = this.#pools.get(instance);
    if (tenants === undefined) {
      tenants = new Map();
      this.#pools.set(instance, tenants);
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
}

/**
 * `PLAITA_CODE_HEAP_MB` (default 128): the largest WebAssembly heap kept after a run. Enough for
 * 512 warm sandboxes (~100 KB each) and a run near its limit; a heap past it is dropped.
 */
function heapCeiling(): number {
  const mb = Number(process.env.PLAITA_CODE_HEAP_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 128) * 1024 * 1024;
}

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
