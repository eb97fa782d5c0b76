import { randomUUID } from 'node:crypto';
import type { EngineOptions } from '../engine/engine-options.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { Delivery, TaskQueue } from '../queue/task-queue.js';
import { DEFAULT_VISIBILITY_TIMEOUT_MS } from '../queue/task-queue.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { FlowStore } from '../store/flow-store.js';
import { type CancelTimer, type Clock, systemClock } from '../util/clock.js';
import { backoffMs, FailureLog } from '../util/failure-log.js';
import { getDefaultLogger, type Logger } from '../util/logger.js';
import { FlowResolver } from './flow-resolver.js';
import { MessageHandler } from './message-handler.js';
import type { WorkerDeps, WorkerSettings } from './worker-deps.js';
import { WaitTimers } from './wait-timers.js';
import { ReplayableNodes } from './replayable-nodes.js';
import { WorkerMetrics } from './worker-metrics.js';

/** docs/durable-contract.md §5 step 5: the longest a replayable run goes unsaved. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 200;

/** After a drain times out, how long abandoned handlings get to unwind before stop() returns. */
const ABANDON_GRACE_MS = 1000;

export interface FlowWorkerOptions extends Partial<Omit<WorkerSettings, 'workerId'>> {
  store: ExecutionStore;
  queue: TaskQueue;
  flows: FlowStore;
  /** Messages handled at once (default 16). */
  concurrency?: number;
  workerId?: string;
  /** In-flight steps get this long to finish on stop() (default 30 s). */
  drainTimeoutMs?: number;
  /** How long one receive waits for messages (default 1000 ms). */
  pollBlockMs?: number;
  registry?: NodeRegistry;
  /** Passed to every step: functions, env, timeZone, callbackBaseUrl, hooks... */
  engine?: EngineOptions;
  /**
   * The worker's time, also given to every step (default `engine.clock`, else the system clock):
   * lease renewals, state timestamps, durable timers' due times, the drain timeout. The store and
   * the queue keep their own clocks (docs/stores.md).
   */
  clock?: Clock;
  logger?: Logger;
  /**
   * Prometheus metrics (`worker.metrics.registry`). Default: a new WorkerMetrics when the
   * optional peer prom-client is installed, else none; `null` turns them off.
   */
  metrics?: WorkerMetrics | null;
}

/**
 * Consumes the task queue with bounded concurrency; each message is handled under the
 * execution's lease by MessageHandler. Never crashes on a message; `stop()` drains.
 */
export class FlowWorker {
  readonly workerId: string;
  readonly metrics: WorkerMetrics | null;
  readonly #deps: WorkerDeps;
  readonly #handler: MessageHandler;
  readonly #concurrency: number;
  readonly #drainTimeoutMs: number;
  readonly #pollBlockMs: number;
  readonly #inFlight = new Set<Promise<void>>();
  /**
   * The slots: a handling holds one until its outcome is durable, not until its message is
   * settled. Acknowledging and giving the lease back then overlap the next receive (at
   * concurrency 1, one round trip less per execution); `#inFlight` still waits for them.
   */
  readonly #working = new Set<Promise<void>>();
  #loop: Promise<void> | null = null;
  #stopping = false;
  #wake: (() => void) | null = null;

  /** Messages being handled now (heartbeats report it). */
  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  /** How long stop() lets the messages under way finish. */
  get drainTimeoutMs(): number {
    return this.#drainTimeoutMs;
  }

  /** At most this many messages are handled at once. */
  get concurrency(): number {
    return this.#concurrency;
  }

  constructor(options: FlowWorkerOptions) {
    // Random, naming no host or pid: the id is shown to every tenant (GET /v1/workers, a running
    // execution's lease), where the worker runs only to platform keys (its heartbeat).
    this.workerId = options.workerId ?? `w-${randomUUID()}`;
    this.metrics = options.metrics === undefined ? WorkerMetrics.ifAvailable() : options.metrics;
    this.metrics?.observeQueue(options.queue);
    const log = (options.logger ?? getDefaultLogger()).child({ workerId: this.workerId });
    const visibilityTimeoutMs = options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
    const clock = options.clock ?? options.engine?.clock ?? systemClock;
    const settings: WorkerSettings = {
      workerId: this.workerId,
      maxDeliveries: options.maxDeliveries ?? 5,
      maxNodeAttempts: options.maxNodeAttempts ?? 5,
      leaseTtlMs: options.leaseTtlMs ?? Math.min(30_000, visibilityTimeoutMs),
      visibilityTimeoutMs,
      maxManualRetries: options.maxManualRetries ?? 3,
      conflictDelayMs: options.conflictDelayMs ?? 250,
      checkpointIntervalMs: options.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
    };
    const engine: EngineOptions = {
      ...options.engine,
      ...(options.registry ? { registry: options.registry } : {}),
      logger: options.engine?.logger ?? log,
      clock,
    };
    this.#deps = {
      store: options.store,
      queue: options.queue,
      resolver: new FlowResolver(options.flows, options.registry),
      settings,
      engine,
      log,
      metrics: this.metrics,
      clock,
      timers: new WaitTimers(options.queue, clock),
      replayable: new ReplayableNodes(engine),
    };
    this.#handler = new MessageHandler(this.#deps);
    this.#concurrency = Math.max(1, options.concurrency ?? 16);
    this.#drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
    this.#pollBlockMs = options.pollBlockMs ?? 1000;
  }

  get running(): boolean {
    return this.#loop !== null && !this.#stopping;
  }

  /** Starts consuming in the background. */
  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#loop = this.#run();
  }

  /**
   * Graceful drain: stops taking messages, lets in-flight steps finish up to the drain
   * timeout (their leases are released as each finishes). What is cut off is abandoned: its
   * node's AbortSignal fires, its lease and message are no longer renewed, nothing more of it
   * is written (not even at its last delivery), its lease is released, and its message is
   * redelivered once the visibility timeout passes ({@link abandonedOnStop}). A handling still
   * waiting for its claim goes no further once the claim returns.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
    this.#abandonedOnStop = 0;
    if (await this.#settledWithin(this.#drainTimeoutMs)) return;
    this.#abandonedOnStop = this.#inFlight.size;
    this.#deps.log.warn(
      { inFlight: this.#inFlight.size },
      'drain timed out; abandoning the executions under way, to be redelivered',
    );
    this.#handler.abandonAll('the worker stopped: its drain timed out');
    // Nodes that honour their signal end at once; give them a moment to unwind.
    await this.#settledWithin(ABANDON_GRACE_MS);
  }

  #abandonedOnStop = 0;
  /**
   * How many handlings the last stop() cut off at its drain timeout (0: it drained). A node
   * that ignores its AbortSignal may still be running in this process: a CLI exits rather
   * than wait for it.
   */
  get abandonedOnStop(): number {
    return this.#abandonedOnStop;
  }

  async #settledWithin(ms: number): Promise<boolean> {
    const drained = Promise.all([...this.#inFlight]).then(() => true);
    let cancel: CancelTimer = () => undefined;
    const timedOut = new Promise<false>((resolve) => {
      cancel = this.#deps.clock.setTimeout(() => resolve(false), ms, { unref: true });
    });
    const finished = await Promise.race([drained, timedOut]);
    cancel();
    return finished;
  }

  /** Handles one batch now (tests, the embedded tier); returns how many messages were handled. */
  async tick(blockMs = 0): Promise<number> {
    const deliveries = await this.#deps.queue.receive(this.workerId, {
      max: this.#concurrency,
      blockMs,
    });
    await Promise.all(deliveries.map((d) => this.#handle(d)));
    return deliveries.length;
  }

  async #run(): Promise<void> {
    const failures = new FailureLog(this.#deps.log, 'receiving from the queue');
    // Busy, the worker takes messages in handfuls: it waits until a few slots are free rather
    // than asking the queue once per finished message (one round trip, and on a partitioned
    // queue a probe of the partitions, per execution). Idle, one free slot is enough.
    const handful = Math.max(1, Math.floor(this.#concurrency / 8));
    while (!this.#stopping) {
      if (this.#working.size > this.#concurrency - handful) {
        await this.#slotFreed();
        continue;
      }
      try {
        const deliveries = await this.#deps.queue.receive(this.workerId, {
          max: this.#concurrency - this.#working.size,
          blockMs: this.#pollBlockMs,
        });
        failures.succeeded();
        for (const delivery of deliveries) this.#track(delivery);
      } catch (error) {
        failures.failed(error);
        await this.#pause(backoffMs(failures.failures, 100, 5000));
      }
    }
  }

  #track(delivery: Delivery): void {
    let freeSlot: () => void = () => undefined;
    const slot: Promise<void> = new Promise<void>((resolve) => (freeSlot = resolve)).then(() => {
      this.#working.delete(slot);
    });
    this.#working.add(slot);
    const tracked = this.#handle(delivery, freeSlot).finally(() => {
      freeSlot();
      this.#inFlight.delete(tracked);
    });
    this.#inFlight.add(tracked);
  }

  async #handle(delivery: Delivery, outcomeDurable?: () => void): Promise<void> {
    this.metrics?.inFlight.inc();
    this.metrics?.messages.inc({
      outcome: 'consumed',
      kind: delivery.parsed.ok ? delivery.parsed.message.kind : 'malformed',
    });
    try {
      await this.#handler.handle(delivery, outcomeDurable);
    } catch (error) {
      // Acting on the decision failed (queue down): the message stays pending and comes back.
      this.#deps.log.warn(
        { messageId: delivery.id, err: error },
        'message handling failed; it will be redelivered',
      );
    } finally {
      this.metrics?.inFlight.dec();
    }
  }

  /** A slot freeing up, or stop(): a busy worker's drain timeout starts when stop() is called. */
  #slotFreed(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      void Promise.race(this.#working).then(resolve);
    });
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.#deps.clock.setTimeout(resolve, ms);
      this.#wake = () => {
        cancel();
        resolve();
      };
    });
  }
}
