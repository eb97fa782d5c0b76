import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of a worker process (durable.md §7). One registry per worker. */
export class WorkerMetrics {
  readonly registry = new Registry();
  readonly messages = new Counter({
    name: 'plaita_messages_total',
    help: 'Messages by outcome (consumed, acked, left, requeued, abandoned, dead_lettered)',
    labelNames: ['outcome', 'kind'] as const,
    registers: [this.registry],
  });
  readonly deadLetters = new Counter({
    name: 'plaita_dead_letters_total',
    help: 'Dead-lettered messages by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly executions = new Counter({
    name: 'plaita_executions_total',
    help: 'Executions reaching a status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly nodeSeconds = new Histogram({
    name: 'plaita_node_duration_seconds',
    help: 'Duration of one step (one node)',
    labelNames: ['type'] as const,
    buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 2, 10, 60],
    registers: [this.registry],
  });
  readonly checkpointSeconds = new Histogram({
    name: 'plaita_checkpoint_duration_seconds',
    help: 'Duration of a fenced checkpoint save',
    buckets: [0.0005, 0.001, 0.005, 0.02, 0.1, 0.5, 2],
    registers: [this.registry],
  });
  readonly checkpointBytes = new Histogram({
    name: 'plaita_checkpoint_bytes',
    help: 'Encoded size of checkpoint headers',
    buckets: [256, 1024, 4096, 16384, 65536, 262144, 1048576],
    registers: [this.registry],
  });
  readonly leaseConflicts = new Counter({
    name: 'plaita_lease_conflicts_total',
    help: 'Messages that found the lease held by another worker',
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'plaita_messages_in_flight',
    help: 'Messages being handled now',
    registers: [this.registry],
  });
  readonly queueLag = new Gauge({
    name: 'plaita_queue_lag_seconds',
    help: 'Age of the oldest ready message',
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'plaita_queue_depth',
    help: 'Messages by queue state',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
}
