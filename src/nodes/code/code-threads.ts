import { CodeError, CodeMemoryError, CodeTimeoutError } from '../../errors/code-errors.js';
import { encodeValue } from '../../state/codec.js';
import { ThreadPool, threadScript } from '../../util/thread-pool.js';
import type { JavaScriptRun, SandboxRequest } from './javascript-sandboxes.js';
import { decodeAnswer, type SandboxAnswer } from './sandbox-answer.js';

/** What a code thread answers (code-thread.ts). */
export type ThreadAnswer =
  | { ok: true; answer: SandboxAnswer }
  | {
      ok: false;
      kind: 'timeout' | 'memory' | 'code';
      message: string;
      retryable?: boolean;
      line?: number;
      column?: number;
    };

/**
 * Time a thread gets past the code's own CPU limit before it is ended: the sandbox stops the
 * code itself at its limit, so this only catches a thread that cannot (a long single built-in
 * call, a first load of the WebAssembly module on a busy machine).
 */
const GRACE_MS = 2_000;

const SCRIPT = threadScript(import.meta.url, './code-thread.js');

/**
 * The code threads of one owner (a CodeRuntime), a pool per size asked (limits.codeThreads,
 * docs/code-node.md "Threads"), started on first need. Each thread keeps its own QuickJS
 * instance and warm sandboxes (code-thread.ts). `close()` ends them all.
 */
export class CodeThreads {
  readonly #pools = new Map<number, ThreadPool>();

  /**
   * Runs a JavaScript code node on one of `threads` code threads instead of the calling thread:
   * the input is encoded and the result decoded here, the code runs there. Tenants take turns
   * for the threads.
   */
  async run(run: JavaScriptRun, threads: number): Promise<unknown> {
    const request: SandboxRequest = {
      source: run.source,
      inputText: encodeValue(run.input, 'input'),
      nowMs: run.nowMs,
      root: run.root,
      tenant: run.tenant,
      cpuMs: run.cpuMs,
      memoryBytes: run.memoryBytes,
      outputBytes: run.outputBytes,
    };
    const reply = (await this.#pool(threads).run({
      tenant: run.tenant,
      message: request,
      deadlineMs: run.cpuMs + GRACE_MS,
      onDeadline: () => new CodeTimeoutError('the code ran out of CPU time (its thread was ended)'),
    })) as ThreadAnswer;
    if (reply.ok) return decodeAnswer(reply.answer, run);
    if (reply.kind === 'timeout') throw new CodeTimeoutError(reply.message);
    if (reply.kind === 'memory') throw new CodeMemoryError(reply.message);
    throw new CodeError(reply.message, {
      ...(reply.retryable !== undefined ? { retryable: reply.retryable } : {}),
      ...(reply.line !== undefined ? { line: reply.line } : {}),
      ...(reply.column !== undefined ? { column: reply.column } : {}),
    });
  }

  /** Ends every code thread (a host shutting down, tests); a later run starts others. */
  async close(): Promise<void> {
    const all = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(all.map((pool) => pool.close()));
  }

  #pool(size: number): ThreadPool {
    let pool = this.#pools.get(size);
    if (pool === undefined) {
      pool = new ThreadPool({ script: SCRIPT, size });
      this.#pools.set(size, pool);
    }
    return pool;
  }
}
