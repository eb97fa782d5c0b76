import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

/**
 * Compute threads yield to the thread that serves requests: on Linux a thread has its own
 * priority, set through its thread id (/proc/thread-self names it). Elsewhere they keep the
 * process's priority.
 */
const THREAD_NICENESS = 10;

function lowerThisThreadsPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, THREAD_NICENESS);
  } catch {
    // Not Linux, or not allowed: the threads still run, at the process's priority.
  }
}

/**
 * The thread side of thread-pool.ts: runs `handle` for each task posted and answers with what
 * it returns, or the message of what it threw. `call` asks the pool's side a question while the
 * task works (answered by the task's `answer`).
 */
export function serveThreadTasks(
  handle: (message: unknown, call: (request: unknown) => Promise<unknown>) => unknown,
): void {
  const port = parentPort;
  if (port === null) throw new Error('serveThreadTasks runs in a worker thread only');
  lowerThisThreadsPriority();
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextCall = 0;
  port.on(
    'message',
    (message: {
      type: 'task' | 'reply';
      id?: number;
      message?: unknown;
      callId?: number;
      ok?: boolean;
      value?: unknown;
      error?: string;
    }) => {
      if (message.type === 'reply') {
        const call = waiting.get(message.callId ?? -1);
        waiting.delete(message.callId ?? -1);
        if (message.ok) call?.resolve(message.value);
        else call?.reject(new Error(message.error ?? 'the call failed'));
        return;
      }
      const id = message.id;
      const call = (request: unknown): Promise<unknown> =>
        new Promise((resolve, reject) => {
          const callId = ++nextCall;
          waiting.set(callId, { resolve, reject });
          port.postMessage({ type: 'call', id, callId, request });
        });
      void (async () => {
        try {
          const value = await handle(message.message, call);
          port.postMessage({ type: 'done', id, ok: true, value });
        } catch (error) {
          port.postMessage({
            type: 'done',
            id,
            ok: false,
            error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          });
        }
      })();
    },
  );
}
