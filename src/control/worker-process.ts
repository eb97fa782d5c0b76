import type { PlaitaClient } from '../client/plaita-client.js';
import type { ControlStore } from '../store/control-store.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { FlowStore } from '../store/flow-store.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { Logger } from '../util/logger.js';
import { FlowWorker, type FlowWorkerOptions } from '../worker/flow-worker.js';
import { ReaperLoop } from '../worker/reaper-loop.js';
import { WorkerHeartbeat } from '../worker/worker-heartbeat.js';
import { Scheduler } from './schedules/scheduler.js';

/** The stores, queue and client a worker process works with (the caller opens and closes them). */
export interface WorkerProcessRuntime {
  store: ExecutionStore;
  flows: FlowStore;
  control: ControlStore;
  queue: TaskQueue;
  client: PlaitaClient;
}

export interface WorkerProcessOptions {
  runtime: WorkerProcessRuntime;
  /** The worker itself (its stores and queue are the runtime's). */
  worker: Omit<FlowWorkerOptions, 'store' | 'flows' | 'queue'>;
  /** Fire schedules here too (default true; `PLAITA_SCHEDULER=0` turns it off in the CLI). */
  scheduler?: boolean;
  /** Reported in the heartbeat (GET /v1/workers). */
  version: string;
  log: Logger;
}

export interface WorkerProcess {
  readonly worker: FlowWorker;
  /** Stops in order: no new schedules or reaps, then the worker drains, then it unregisters. */
  stop(): Promise<void>;
}

/**
 * `plaita worker` as a library (issue 30 §1): a worker, its heartbeat, the scheduler and the
 * reaper, started and stopped in the one right order. The CLI only parses flags and calls it.
 */
export function startWorkerProcess(options: WorkerProcessOptions): WorkerProcess {
  const { runtime, log } = options;
  const worker = new FlowWorker({
    ...options.worker,
    store: runtime.store,
    flows: runtime.flows,
    queue: runtime.queue,
  });
  worker.start();
  // Workers register themselves (GET /v1/workers) and fire schedules like any server does.
  const heartbeat = new WorkerHeartbeat(runtime.control, worker, {
    version: options.version,
    log,
  }).start();
  const scheduler = options.scheduler === false ? null : new Scheduler(runtime, { log }).start();
  // Executions a dead process left queued or running continue by themselves (plaita reap).
  const reaper = new ReaperLoop(runtime, { log }).start();
  return {
    worker,
    async stop() {
      await scheduler?.stop();
      await reaper.stop();
      await worker.stop();
      await heartbeat.stop();
    },
  };
}
