import { Worker } from 'node:worker_threads';

/**
 * A few worker threads that run CPU-bound work (a code node, a dry-run) off the calling
 * thread's event loop, so a server keeps answering while flows compute.
 *
 * Fair by tenant: queued tasks are taken tenant by tenant in turn, and one tenant holds at most
 * `perTenant` threads at once (default: all but one), so one tenant's runaway work leaves a
 * thread for the others. Every task has a deadline counted from when a thread takes it: past
 * it the thread is ended (the only way to stop a synchronous loop) and replaced on next need.
 *
 * The protocol (thread side in thread-task.ts): `{type: 'task', id, message}` in,
 * `{type: 'done', id, ok, value | error}` out; a thread may call back while it works
 * (`{type: 'call', id, callId, request}`, answered by `{type: 'reply', callId, ok, value | error}`).
 */
/**
 * The compiled entry `file` (`code-thread.js`) beside the module at `moduleUrl`. Under the test
 * runner that module is TypeScript in src/; a thread runs the built JavaScript in dist/.
 */
export function threadScript(moduleUrl: string, file: string): URL {
  const script = new URL(file, moduleUrl);
  if (moduleUrl.endsWith('.ts'))
    script.pathname = script.pathname.replace(/\/src\/(?!.*\/src\/)/, '/dist/');
  return script;
}

export interface ThreadPoolOptions {
  /** The thread's entry module, compiled JavaScript. */
  script: URL;
  size: number;
  /** Threads one tenant may hold at once; default `size - 1`, at least 1. */
  perTenant?: number;
  workerData?: unknown;
}

export interface ThreadTask {
  tenant: string;
  message: unknown;
  /** Milliseconds a thread may spend on it once taken. */
  deadlineMs: number;
  /** The error a task past its deadline fails with. */
  onDeadline: () => Error;
  /** Answers calls the thread makes while it works (a flow to read, say). */
  answer?: (request: unknown) => Promise<unknown>;
  /** Aborted: a queued task leaves the queue, a running one's thread is ended. */
  signal?: AbortSignal;
}

interface Pending {
  task: ThreadTask;
  id: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  thread?: Thread;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

interface Thread {
  worker: Worker;
  current: Pending | null;
}

interface FromThread {
  type: 'done' | 'call';
  id: number;
  ok?: boolean;
  value?: unknown;
  error?: string;
  callId?: number;
  request?: unknown;
}

export class ThreadPool {
  readonly #options: ThreadPoolOptions;
  readonly #perTenant: number;
  readonly #threads: Thread[] = [];
  /** Queued tasks by tenant; the map's order is the order tenants take turns in. */
  readonly #queues = new Map<string, Pending[]>();
  readonly #running = new Map<string, number>();
  #nextId = 0;
  #closed = false;

  constructor(options: ThreadPoolOptions) {
    this.#options = options;
    this.#perTenant = Math.max(1, options.perTenant ?? options.size - 1);
  }

  run(task: ThreadTask): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('the thread pool is closed'));
    if (task.signal?.aborted) return Promise.reject(abortReason(task.signal));
    return new Promise((resolve, reject) => {
      const pending: Pending = { task, id: ++this.#nextId, resolve, reject };
      if (task.signal) {
        pending.onAbort = () => this.#abort(pending);
        task.signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      const queue = this.#queues.get(task.tenant);
      if (queue) queue.push(pending);
      else this.#queues.set(task.tenant, [pending]);
      this.#dispatch();
    });
  }

  /** Ends every thread; queued and running tasks fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const failure = new Error('the thread pool is closed');
    for (const queue of this.#queues.values()) for (const p of queue) this.#settle(p, failure);
    this.#queues.clear();
    await Promise.all(
      this.#threads.splice(0).map((thread) => {
        if (thread.current) this.#settle(thread.current, failure);
        return thread.worker.terminate();
      }),
    );
  }

  #dispatch(): void {
    for (;;) {
      const thread = this.#idleThread();
      if (thread === undefined) return;
      const next = this.#nextTask();
      if (next === undefined) {
        // Idle threads never keep a process alive: every one, not only the one found here.
        for (const idle of this.#threads) if (idle.current === null) idle.worker.unref();
        return;
      }
      this.#start(thread, next);
    }
  }

  #idleThread(): Thread | undefined {
    const idle = this.#threads.find((thread) => thread.current === null);
    if (idle !== undefined || this.#threads.length >= this.#options.size) return idle;
    if (![...this.#queues.values()].some((queue) => queue.length > 0)) return undefined;
    return this.#spawn();
  }

  /** The first task of the first tenant in turn that may take another thread. */
  #nextTask(): Pending | undefined {
    for (const [tenant, queue] of this.#queues) {
      if ((this.#running.get(tenant) ?? 0) >= this.#perTenant) continue;
      const pending = queue.shift();
      // Served: to the back of the line; a tenant with nothing queued leaves it.
      this.#queues.delete(tenant);
      if (queue.length > 0) this.#queues.set(tenant, queue);
      if (pending !== undefined) return pending;
    }
    return undefined;
  }

  #start(thread: Thread, pending: Pending): void {
    thread.current = pending;
    pending.thread = thread;
    const { tenant } = pending.task;
    this.#running.set(tenant, (this.#running.get(tenant) ?? 0) + 1);
    // Held while it works: a process waiting on a thread's answer must not exit.
    thread.worker.ref();
    pending.timer = setTimeout(
      () => this.#end(thread, pending.task.onDeadline()),
      pending.task.deadlineMs,
    );
    thread.worker.postMessage({ type: 'task', id: pending.id, message: pending.task.message });
  }

  #spawn(): Thread {
    const worker = new Worker(this.#options.script, { workerData: this.#options.workerData });
    const thread: Thread = { worker, current: null };
    worker.on('message', (message: FromThread) => this.#onMessage(thread, message));
    worker.on('error', (error) => this.#end(thread, error));
    worker.on('exit', (code) => this.#end(thread, new Error(`the thread exited (${code})`)));
    this.#threads.push(thread);
    return thread;
  }

  #onMessage(thread: Thread, message: FromThread): void {
    const pending = thread.current;
    if (pending === null || message.id !== pending.id) return;
    if (message.type === 'call') {
      void this.#answerCall(thread, pending, message);
      return;
    }
    thread.current = null;
    this.#release(pending);
    if (message.ok === true) this.#settle(pending, undefined, message.value);
    else this.#settle(pending, new Error(message.error ?? 'the thread failed'));
    this.#dispatch();
  }

  async #answerCall(thread: Thread, pending: Pending, message: FromThread): Promise<void> {
    let reply: {
      type: 'reply';
      callId: number | undefined;
      ok: boolean;
      value?: unknown;
      error?: string;
    };
    try {
      if (!pending.task.answer) throw new Error('this task answers no calls');
      reply = {
        type: 'reply',
        callId: message.callId,
        ok: true,
        value: await pending.task.answer(message.request),
      };
    } catch (error) {
      reply = { type: 'reply', callId: message.callId, ok: false, error: String(error) };
    }
    if (thread.current === pending) thread.worker.postMessage(reply);
  }

  #abort(pending: Pending): void {
    const reason = abortReason(pending.task.signal!);
    if (pending.thread) {
      this.#end(pending.thread, reason);
      return;
    }
    const queue = this.#queues.get(pending.task.tenant);
    const index = queue?.indexOf(pending) ?? -1;
    if (index >= 0) queue!.splice(index, 1);
    this.#settle(pending, reason);
  }

  /** Ends a thread (deadline, abort, crash); its task fails with `error`. */
  #end(thread: Thread, error: Error): void {
    const index = this.#threads.indexOf(thread);
    if (index < 0) return;
    this.#threads.splice(index, 1);
    const pending = thread.current;
    thread.current = null;
    void thread.worker.terminate();
    if (pending) {
      this.#release(pending);
      this.#settle(pending, error);
    }
    if (!this.#closed) this.#dispatch();
  }

  #release(pending: Pending): void {
    clearTimeout(pending.timer);
    const { tenant } = pending.task;
    const running = (this.#running.get(tenant) ?? 1) - 1;
    if (running > 0) this.#running.set(tenant, running);
    else this.#running.delete(tenant);
  }

  #settle(pending: Pending, error: Error | undefined, value?: unknown): void {
    if (pending.onAbort) pending.task.signal?.removeEventListener('abort', pending.onAbort);
    if (error) pending.reject(error);
    else pending.resolve(value);
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
