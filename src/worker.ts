// `plaita/worker`: the distributed runtime's consumer side. It needs no driver of its own (the
// store and the queue are passed in); its Prometheus metrics load prom-client, an optional peer
// dependency, when a WorkerMetrics is built (a FlowWorker without prom-client runs without them).
export { FlowWorker, type FlowWorkerOptions } from './worker/flow-worker.js';
export { WorkerMetrics } from './worker/worker-metrics.js';
export { reapStale, type ReapOptions } from './worker/reaper.js';
export type { TaskQueue, Delivery, DeadLetter, EnqueueOptions } from './queue/task-queue.js';
export {
  startWorkerProcess,
  type WorkerProcess,
  type WorkerProcessOptions,
  type WorkerProcessRuntime,
} from './control/worker-process.js';
