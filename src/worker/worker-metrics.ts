import type * as PromClientModule from 'prom-client';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { errorCode } from '../errors/plaita-error.js';
import type { TaskQueue } from '../queue/task-queue.js';
import { loadOptionalPeer } from '../util/optional-peer.js';

type PromClient = typeof PromClientModule;

/** Prometheus metrics of a worker process (docs/durable-contract.md §7). One registry per worker. */
export class WorkerMetrics {
  readonly registry: Registry;
  readonly messages: Counter<'outcome' | 'kind'>;
  readonly deadLetters: Counter<'reason'>;
  readonly executions: Counter<'status'>;
  readonly nodeSeconds: Histogram<'type'>;
  readonly checkpointSeconds: Histogram;
  readonly checkpointBytes: Histogram;
  readonly leaseConflicts: Counter;
  readonly inFlight: Gauge;
  readonly queueLag: Gauge;
  readonly queueDepth: Gauge<'state'>;
  #queue: Pick<TaskQueue, 'stats'> | null = null;
  #sample: { at: number; stats: Promise<QueueStats | null> } | null = null;

  /** Loads prom-client (an optional peer dependency): PeerDependencyMissingError without it. */
  constructor() {
    const prom = loadOptionalPeer<PromClient>('prom-client', 'WorkerMetrics');
    this.registry = new prom.Registry();
    const registers = [this.registry];
    this.messages = new prom.Counter({
      name: 'plaita_messages_total',
      help: 'Messages by outcome (consumed, ack, leave, requeue, abandon, dead_letter)',
      labelNames: ['outcome', 'kind'] as const,
      registers,
    });
    this.deadLetters = new prom.Counter({
      name: 'plaita_dead_letters_total',
      help: 'Dead-lettered messages by reason',
      labelNames: ['reason'] as const,
      registers,
    });
    this.executions = new prom.Counter({
      name: 'plaita_executions_total',
      help: 'Executions reaching a status',
      labelNames: ['status'] as const,
      registers,
    });
    this.nodeSeconds = new prom.Histogram({
      name: 'plaita_node_duration_seconds',
      help: 'Duration of one step (one node)',
      labelNames: ['type'] as const,
      buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 2, 10, 60],
      registers,
    });
    this.checkpointSeconds = new prom.Histogram({
      name: 'plaita_checkpoint_duration_seconds',
      help: 'Duration of a fenced checkpoint save',
      buckets: [0.0005, 0.001, 0.005, 0.02, 0.1, 0.5, 2],
      registers,
    });
    this.checkpointBytes = new prom.Histogram({
      name: 'plaita_checkpoint_bytes',
      help: 'Bytes a checkpoint encodes and writes (header and changed node results)',
      buckets: [256, 1024, 4096, 16384, 65536, 262144, 1048576],
      registers,
    });
    this.leaseConflicts = new prom.Counter({
      name: 'plaita_lease_conflicts_total',
      help: 'Messages that found the lease held by another worker',
      registers,
    });
    this.inFlight = new prom.Gauge({
      name: 'plaita_messages_in_flight',
      help: 'Messages being handled now',
      registers,
    });
    // Sampled when scraped; both gauges of one scrape share one stats call (a 20 ms window).
    const stats = (): Promise<QueueStats | null> => this.#stats();
    this.queueLag = new prom.Gauge({
      name: 'plaita_queue_lag_seconds',
      help: 'Age of the oldest ready message, sampled at scrape time',
      registers,
      async collect() {
        const sampled = await stats();
        if (sampled) this.set((sampled.oldestReadyAgeMs ?? 0) / 1000);
      },
    });
    this.queueDepth = new prom.Gauge({
      name: 'plaita_queue_depth',
      help: 'Messages by queue state (ready, in_flight, delayed, dead_letter), sampled at scrape time',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const sampled = await stats();
        if (!sampled) return;
        this.set({ state: 'ready' }, sampled.ready);
        this.set({ state: 'in_flight' }, sampled.inFlight);
        this.set({ state: 'delayed' }, sampled.delayed);
        this.set({ state: 'dead_letter' }, sampled.deadLetters);
      },
    });
  }

  /**
   * Metrics when prom-client is installed, else null: a worker built without `metrics` records
   * them only where they can be served, and runs without the package.
   */
  static ifAvailable(): WorkerMetrics | null {
    try {
      return new WorkerMetrics();
    } catch (error) {
      if (errorCode(error) === 'peer_dependency_missing') return null;
      throw error;
    }
  }

  /** The queue whose depth and lag the gauges report. */
  observeQueue(queue: Pick<TaskQueue, 'stats'>): void {
    this.#queue = queue;
  }

  #stats(): Promise<QueueStats | null> {
    const queue = this.#queue;
    if (!queue) return Promise.resolve(null);
    const now = Date.now();
    if (!this.#sample || now - this.#sample.at > 20) {
      // A queue that cannot answer leaves the last values: a scrape never fails for it.
      this.#sample = { at: now, stats: queue.stats().catch(() => null) };
    }
    return this.#sample.stats;
  }
}

type QueueStats = Awaited<ReturnType<TaskQueue['stats']>>;
