import type { EngineOptions } from '../engine/engine-options.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { FlowResolver } from './flow-resolver.js';
import type { ReplayableNodes } from './replayable-nodes.js';
import type { WaitTimers } from './wait-timers.js';
import type { WorkerMetrics } from './worker-metrics.js';

export interface WorkerSettings {
  workerId: string;
  /** A transiently failing message is redelivered until this many deliveries, then dead-lettered. */
  maxDeliveries: number;
  /** Starts of one node visit (a worker dying mid-node) before `node_crash_loop`. */
  maxNodeAttempts: number;
  leaseTtlMs: number;
  visibilityTimeoutMs: number;
  maxManualRetries: number;
  /** Delay before a lease-conflicting message is delivered again. */
  conflictDelayMs: number;
  /**
   * Longest run of replayable nodes whose results ride along unsaved (docs/durable-contract.md
   * §5 step 5): a checkpoint is saved once this long has passed since the last. 0: every node
   * is saved before the next runs.
   */
  checkpointIntervalMs: number;
}

/** What message handling needs; assembled once per worker. */
export interface WorkerDeps {
  store: ExecutionStore;
  queue: TaskQueue;
  resolver: FlowResolver;
  settings: WorkerSettings;
  /** Engine options passed to every step (registry, functions, env, time zone...). */
  engine: EngineOptions;
  log: Logger;
  metrics: WorkerMetrics | null;
  /** The worker's clock, shared with the engine (`engine.clock`): state timestamps, due times, leases. */
  clock: Clock;
  /** Arms, withdraws and fires the durable timers of waits. */
  timers: WaitTimers;
  /** Which nodes need not be saved before the next runs. */
  replayable: ReplayableNodes;
}
