import { CodeError, CodeMemoryError, CodeTimeoutError } from '../../errors.js';
import { encodeValue } from '../../state/codec.js';
import { ThreadPool, threadScript } from '../../util/thread-pool.js';
import { decodeAnswer, type JavaScriptRun, type SandboxRequest } from './javascript-backend.js';
import type { SandboxAnswer } from './sandbox-answer.js';

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

/** One pool per process (per size asked): threads are a process's resource, like its CPU. */
const pools = new Map<number, ThreadPool>();

const SCRIPT = threadScript(import.meta.url, './code-thread.js');

/**
 * Runs a JavaScript code node on one of `threads` code threads instead of the calling thread
 * (limits.codeThreads, docs/code-node.md "Threads"): the input is encoded and the result
 * decoded here, the code runs there. Tenants take turns for the threads.
 */
export async function runJavaScriptInThread(run: JavaScriptRun, threads: number): Promise<unknown> {
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
  const reply = (await codeThreads(threads).run({
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

function codeThreads(size: number): ThreadPool {
  let pool = pools.get(size);
  if (pool === undefined) {
    pool = new ThreadPool({ script: SCRIPT, size });
    pools.set(size, pool);
  }
  return pool;
}

/** Ends every code thread (a host shutting down, tests). */
export async function closeCodeThreads(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}
