import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../../util/connect-timeout.js';
import { RedisConnection, type RedisClient } from '../redis-connection.js';
import { InvalidCursorError, StoreClosedError } from '../../../errors/store-errors.js';
import { TickBatch } from '../../../util/tick-batch.js';
import {
  DEFAULT_DLQ_MAX_LEN,
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  executionIdOf,
  type DeadLetter,
  type Delivery,
  type EnqueueOptions,
  type ReceiveOptions,
  type TaskQueue,
  type TaskQueueOptions,
} from '../../../queue/task-queue.js';
import { encodeTaskMessage, type TaskMessage } from '../../../queue/task-message.js';
import { BlockingConnections } from './blocking-connections.js';
import { compareNewestFirst, PartitionRoute, shares } from './partition-route.js';
import { PartitionWaits } from './partition-waits.js';
import { ScanSchedule } from './scan-schedule.js';
import { partitionKeys, type QueueKeys } from './redis-stream-keys.js';
import { STREAM_ID } from './stream-replies.js';
import { StreamPartition, type DelayedTimer, type QueueStats } from './stream-partition.js';
import { type Clock, systemClock } from '../../../util/clock.js';

/**
 * `{client}`: an ioredis client, single-node or Cluster (blocking reads use connections
 * duplicated from it). `{url}`: `redis://…`, or `redis+cluster://host1:7000,host2:7001` for
 * Redis Cluster (see redis-connection.ts).
 */
export type RedisStreamQueueConnection = { url: string } | { client: RedisClient };

export interface RedisStreamQueueOptions extends TaskQueueOptions {
  /** Stream name, also the hash tag of every key of this queue. Default `plaita:tasks`. */
  stream?: string;
  /** Consumer group shared by all workers. Default `plaita-workers`. */
  group?: string;
  /** Prepended to every key (outside the hash tag), e.g. to isolate tests. Default none. */
  prefix?: string;
  /** Upper bound for one non-blocking command, ms. Default 5 s. */
  commandTimeoutMs?: number;
  /** Due timers moved per promoteDue call at most (per partition). Default 500. */
  promoteBatchSize?: number;
  /**
   * Streams the queue is split into (default 1: one stream, the key names of an unpartitioned
   * queue). With N > 1 every partition has its own hash tag, spread over the cluster's slots,
   * and a message goes to the partition of its execution id. Every process of one queue must
   * use the same N; changing it is the drain-and-switch of docs/scaling.md.
   */
  partitions?: number;
  /**
   * A consumer of the group holding no pending entry and not seen for this long is deleted
   * (default 1 h): every worker start registers a consumer, and the list would otherwise grow
   * with every restart. Deleting one loses nothing; a live worker is registered again by its
   * next read.
   */
  staleConsumerMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;
const DEFAULT_PROMOTE_BATCH = 500;
const DEFAULT_LIST_LIMIT = 100;
const DEFAULT_STALE_CONSUMER_MS = 3_600_000;
/** Looked for at most this often by one queue object: the list changes only with restarts. */
const MAX_PRUNE_INTERVAL_MS = 300_000;

/**
 * The distributed task queue: Redis streams read by one consumer group (docs/durable-contract.md
 * §4, docs/queues.md). Delivery counts, visibility and ownership are each stream's
 * pending-entries list; every multi-step transition is one Lua script on one partition's slot
 * (see stream-partition.ts and the `.lua` files beside this module).
 *
 * With `partitions: N` the queue is N such streams (see partitionKeys): a message goes to the
 * partition of its execution, so one execution's messages keep their order; `receive` asks
 * one partition first, a different one each call (fair), then the others, and blocks on
 * all of them (see PartitionWaits); delayed messages, reclaim and dead letters live in each
 * partition. Order between executions of different partitions is not kept, and `dlqMaxLen`
 * caps each partition's dead letters.
 *
 * `{url}`: the queue owns its connections. `{client}`: the caller's client is used and left
 * open by `close()` (blocking reads still use connections duplicated from it, which are closed).
 * A client with ioredis `keyPrefix` is not supported: use the `prefix` option.
 */
export class RedisStreamQueue implements TaskQueue {
  private readonly connection: RedisConnection;
  private readonly partitions: StreamPartition[];
  private readonly route: PartitionRoute;
  private readonly visibilityTimeoutMs: number;
  private readonly dlqMaxLen: number;
  private readonly promoteBatchSize: number;
  private readonly blocking: BlockingConnections;
  private readonly waits: PartitionWaits;
  private readonly schedule: ScanSchedule;
  private readonly staleConsumerMs: number;
  /** The queue's "now" for due times and dead letters; scans and blocking run on real time. */
  private readonly clock: Clock;
  /** The first prune one interval after the start: a short-lived process never runs one. */
  private pruneAt: number;
  /**
   * The partition asked first by the next read of new entries, and by the next reclaim (each
   * rotates: fairness). Apart, so reclaims between reads never make reads skip partitions.
   */
  private readonly turns = { read: 0, reclaim: 0 };
  private closed = false;
  /**
   * Group commit (see TickBatch): the enqueues and the acks of one tick each go out as one
   * command per partition. A worker finishing several executions at once, or a client
   * starting many, sends one round of commands instead of one per message.
   */
  private readonly adds = new TickBatch<string, string>((p, payloads) =>
    this.partition(p).add(payloads),
  );
  private readonly acks = new TickBatch<string>((p, ids) => this.partition(p).ack(ids));

  /**
   * `new RedisStreamQueue({url | client}, {stream?, group?, …})`, or the contract's one-object
   * form `new RedisStreamQueue({url | client, stream?, group?, …})` (docs/public-surface.md).
   */
  constructor(
    connection: RedisStreamQueueConnection & RedisStreamQueueOptions,
    options: RedisStreamQueueOptions = connection,
  ) {
    const keys = partitionKeys(
      options.stream ?? 'plaita:tasks',
      options.prefix ?? '',
      options.partitions ?? 1,
    );
    const group = options.group ?? 'plaita-workers';
    this.clock = options.clock ?? systemClock;
    const op = <T>(operation: string, k: QueueKeys, fn: (client: Redis) => Promise<T>) =>
      this.op(operation, k, fn);
    this.partitions = keys.map((k) => new StreamPartition(k, group, op));
    this.route = new PartitionRoute(keys.length);
    this.visibilityTimeoutMs = positive(
      options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS,
      'visibilityTimeoutMs',
    );
    this.dlqMaxLen = positive(options.dlqMaxLen ?? DEFAULT_DLQ_MAX_LEN, 'dlqMaxLen');
    this.schedule = new ScanSchedule(this.visibilityTimeoutMs);
    this.staleConsumerMs = positive(
      options.staleConsumerMs ?? DEFAULT_STALE_CONSUMER_MS,
      'staleConsumerMs',
    );
    this.pruneAt = Date.now() + this.pruneIntervalMs();
    this.promoteBatchSize = positive(
      options.promoteBatchSize ?? DEFAULT_PROMOTE_BATCH,
      'promoteBatchSize',
    );
    const connectTimeoutMs = positive(
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      'connectTimeoutMs',
    );
    const commandTimeoutMs = positive(
      options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      'commandTimeoutMs',
    );
    // The store's connection layer: no offline queue, bounded waits, background reconnects,
    // driver errors classified (transient → StoreUnavailableError).
    this.connection = new RedisConnection(
      connection,
      { connectTimeoutMs, commandTimeoutMs },
      'RedisStreamQueue',
    );
    this.blocking = new BlockingConnections(this.connection.client, {
      connectTimeoutMs,
      commandTimeoutMs,
      maxBlockMs: this.visibilityTimeoutMs,
    });
    this.waits = new PartitionWaits(
      this.partitions.length,
      (p, consumer, count, waitMs) => this.readBlocking(p, consumer, count, waitMs),
      Math.floor(this.visibilityTimeoutMs / 2),
    );
  }

  async enqueue(message: TaskMessage, options: EnqueueOptions = {}): Promise<string> {
    const payload = encodeTaskMessage(message);
    const delayMs = options.delayMs ?? 0;
    const p = this.route.of(message.executionId);
    if (delayMs <= 0) return this.route.qualify(p, await this.adds.add(String(p), payload));
    this.assertOpen();
    const timerId = options.dedupId ?? randomUUID();
    const dueMs = this.clock.now() + delayMs;
    await this.partitions[p]!.schedule(timerId, dueMs, payload);
    // The scan schedule runs on real time: wake when this delay has passed there.
    this.schedule.scheduled(Date.now() + delayMs);
    return timerId;
  }

  /**
   * Order of work: deliveries kept from an earlier blocked read, then promote due timers,
   * reclaim expired deliveries (redeliveries first, so a dead consumer's messages do not
   * starve behind new ones), then read new entries — the two scans on the schedule of
   * ScanSchedule, not on every call. While nothing is there it blocks in slices that end when
   * the next scan or the next known timer is due.
   */
  async receive(consumer: string, options: ReceiveOptions): Promise<Delivery[]> {
    if (options.max < 1) return [];
    if (this.closed) return this.rejectClosed();
    try {
      return await this.receiveUntil(
        consumer,
        options.max,
        Date.now() + Math.max(0, options.blockMs),
      );
    } catch (error) {
      // close() during the receive ends its connections: a receive cut off by it (waiting for
      // a connection to become ready, or blocked in a read) just ends empty.
      if (this.closed) return [];
      throw error;
    }
  }

  private async receiveUntil(consumer: string, max: number, deadline: number): Promise<Delivery[]> {
    for (;;) {
      const kept = this.waits.take(consumer, max);
      if (kept.length > 0) return kept;
      const claimed = await this.scan(consumer, max);
      const wanted = max - claimed.length;
      const wakeAt = claimed.length > 0 ? Date.now() : Math.min(deadline, this.schedule.wakeAt());
      const fresh = wanted > 0 ? await this.readNew(consumer, wanted, wakeAt) : [];
      const deliveries = [...claimed, ...fresh];
      if (deliveries.length > 0 || Date.now() >= deadline || this.closed) return deliveries;
    }
  }

  ack(delivery: Delivery): Promise<void> {
    const at = this.route.locate(delivery.id);
    if (at === null) return this.closed ? this.rejectClosed() : Promise.resolve();
    return this.acks.add(String(at.partition), at.streamId);
  }

  async renew(delivery: Delivery, consumer: string): Promise<boolean> {
    const at = this.route.locate(delivery.id);
    if (at === null) return false;
    return this.partitions[at.partition]!.renew(at.streamId, consumer);
  }

  async deadLetter(
    delivery: Delivery,
    reason: string,
    lastError: string | null = null,
  ): Promise<void> {
    const at = this.route.locate(delivery.id);
    if (at === null) return;
    const executionId = executionIdOf(delivery);
    // prettier-ignore
    const fields = [
      'reason', reason,
      ...(lastError === null ? [] : ['lastError', lastError]),
      'deliveryCount', String(delivery.deliveryCount),
      'payload', delivery.payload,
      ...(executionId === null ? [] : ['executionId', executionId]),
      'at', new Date(this.clock.now()).toISOString(),
    ];
    await this.partitions[at.partition]!.deadLetter(at.streamId, this.dlqMaxLen, fields);
  }

  async promoteDue(now: number = this.clock.now()): Promise<number> {
    return (await this.promote(now)).moved;
  }

  async cancelDelayed(id: string): Promise<boolean> {
    // A timer id (random, or the caller's dedupId) does not name its partition: ask each.
    const removed = await Promise.all(this.partitions.map((p) => p.cancelDelayed(id)));
    return removed.includes(true);
  }

  async listDeadLetters(
    options: { limit?: number; cursor?: string | null } = {},
  ): Promise<{ items: DeadLetter[]; nextCursor: string | null }> {
    const limit = positive(options.limit ?? DEFAULT_LIST_LIMIT, 'limit');
    const cursor = options.cursor ?? null;
    const at = cursor === null ? null : this.route.locate(cursor);
    if (cursor !== null && (at === null || !STREAM_ID.test(at.streamId)))
      throw new InvalidCursorError(`invalid dead-letter cursor ${JSON.stringify(cursor)}`);
    // Newest first over every partition (stream id, then partition, descending); the cursor is
    // the last entry of the previous page: each partition resumes strictly after it.
    const pages = await Promise.all(
      this.partitions.map(async (partition, p) => {
        const end = at === null ? '+' : p < at.partition ? at.streamId : `(${at.streamId}`;
        const letters = await partition.deadLetters(end, limit + 1);
        return letters.map((letter) => ({ partition: p, streamId: letter.id, letter }));
      }),
    );
    const entries = pages
      .flat()
      .sort(compareNewestFirst)
      .slice(0, limit + 1);
    const items = entries
      .slice(0, limit)
      .map((e) => ({ ...e.letter, id: this.route.qualify(e.partition, e.streamId) }));
    return { items, nextCursor: entries.length > limit ? (items.at(-1)?.id ?? null) : null };
  }

  async findDeadLetter(id: string): Promise<DeadLetter | null> {
    const at = this.route.locate(id);
    if (at === null || !STREAM_ID.test(at.streamId)) return null;
    const [letter] = await this.partitions[at.partition]!.deadLetters(at.streamId, 1);
    return letter?.id === at.streamId ? { ...letter, id } : null;
  }

  async replayDeadLetter(id: string): Promise<boolean> {
    const at = this.route.locate(id);
    if (at === null || !STREAM_ID.test(at.streamId)) return false;
    return (await this.partitions[at.partition]!.replayDeadLetter(at.streamId)) !== null;
  }

  async purgeDeadLetters(): Promise<number> {
    const purged = await Promise.all(this.partitions.map((p) => p.purgeDeadLetters()));
    return purged.reduce((a, b) => a + b, 0);
  }

  /**
   * `ready` = stream entries not pending in the group (never delivered); `inFlight` = pending
   * entries, including expired ones not yet reclaimed; `oldestReadyAgeMs` = server time minus
   * the timestamp in the id of the first never-delivered entry (approximate: it ignores expired
   * pending entries waiting for redelivery, and a promoted timer counts from its promotion).
   * Partitioned: the sums over the partitions, and the oldest age of any.
   */
  async stats(): Promise<QueueStats> {
    const all = await Promise.all(this.partitions.map((p) => p.stats()));
    const ages = all.map((s) => s.oldestReadyAgeMs).filter((age) => age !== null);
    const sum = (field: 'ready' | 'inFlight' | 'delayed' | 'deadLetters'): number =>
      all.reduce((total, s) => total + s[field], 0);
    return {
      ready: sum('ready'),
      inFlight: sum('inFlight'),
      delayed: sum('delayed'),
      deadLetters: sum('deadLetters'),
      oldestReadyAgeMs: ages.length === 0 ? null : Math.max(...ages),
    };
  }

  /** Up to `limit` waiting timers of each partition, read only (see drainQueue). */
  async delayedTimers(limit: number): Promise<DelayedTimer[]> {
    const all = await Promise.all(this.partitions.map((p) => p.delayedTimers(limit)));
    return all.flat();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Enqueues and acks accepted in this tick are sent first (group commit holds them).
    await Promise.all([this.adds.settle(), this.acks.settle()]);
    if (this.closed) return;
    this.closed = true;
    await this.blocking.close();
    await this.connection.close();
  }

  private partition(key: string): StreamPartition {
    return this.partitions[Number(key)]!;
  }

  private async promote(now: number): Promise<{ moved: number; nextDueMs: number | null }> {
    const all = await Promise.all(
      this.partitions.map((p) => p.promote(now, this.promoteBatchSize)),
    );
    const moved = all.reduce((total, r) => total + r.moved, 0);
    const dues = all.map((r) => r.nextDueMs).filter((due) => due !== null);
    const nextDueMs = dues.length === 0 ? null : Math.min(...dues);
    // A partition that moved a full batch may have more: promote again at once.
    const full = all.some((r) => r.moved >= this.promoteBatchSize);
    // The schedule runs on the real clock, also when a caller promotes with a `now` of its own
    // or the queue has a clock of its own: the next due time is moved onto it.
    const realNow = Date.now();
    this.schedule.promoted(
      realNow,
      full ? this.promoteBatchSize : 0,
      this.promoteBatchSize,
      nextDueMs === null ? null : realNow + (nextDueMs - this.clock.now()),
    );
    return { moved, nextDueMs };
  }

  /**
   * The scans that are due, sent together (one round trip). Claimed deliveries are never
   * dropped because the promotion failed: they are returned, the failure surfaces next time.
   */
  private async scan(consumer: string, max: number): Promise<Delivery[]> {
    const now = Date.now();
    if (now >= this.pruneAt) this.pruneStaleConsumers(now);
    const [promoted, claimed] = await Promise.allSettled([
      this.schedule.shouldPromote(now) ? this.promote(this.clock.now()) : null,
      this.schedule.shouldClaim(now) ? this.claimExpired(consumer, max) : [],
    ]);
    if (claimed.status === 'rejected') throw claimed.reason;
    if (promoted.status === 'rejected' && claimed.value.length === 0) throw promoted.reason;
    return claimed.value;
  }

  /**
   * Deletes the group's stale consumers (see `staleConsumerMs`), off the receive path:
   * housekeeping that fails is tried again at the next interval, and never fails a receive.
   */
  private pruneStaleConsumers(now: number): void {
    this.pruneAt = now + this.pruneIntervalMs();
    for (const partition of this.partitions)
      partition.pruneConsumers(this.staleConsumerMs).catch(() => undefined);
  }

  private pruneIntervalMs(): number {
    return Math.min(this.staleConsumerMs, MAX_PRUNE_INTERVAL_MS);
  }

  /** Expired deliveries, `max` shared over the partitions (see {@link fill}). */
  private async claimExpired(consumer: string, max: number): Promise<Delivery[]> {
    const deliveries = await this.fill(
      'reclaim',
      max,
      (partition, count) => partition.claimExpired(consumer, this.visibilityTimeoutMs, count),
      (partition) => partition.hasExpired(this.visibilityTimeoutMs),
    );
    this.schedule.claimed(Date.now(), deliveries.length, max);
    return deliveries;
  }

  /**
   * Up to `wanted` deliveries from the partitions, never more (an entry read is pending under
   * the consumer, its delivery counted). First the partition whose turn it is (rotating:
   * fairness) is asked for all of them — one command, enough when the queue is busy; a share
   * per partition would cost a command per partition for a handful of entries. If that comes
   * up short, what is left is shared over the others; if still short, the partitions not asked
   * yet and those that filled their share are probed at once with a read-only check (`has`),
   * and what is left is shared over those that have entries; again until `wanted` are read or
   * no partition has more. A busy partition delays the others by at most one call each: every
   * partition is first once in N calls.
   */
  private async fill(
    kind: 'read' | 'reclaim',
    wanted: number,
    take: (partition: StreamPartition, count: number) => Promise<Delivery[]>,
    has: (partition: StreamPartition) => Promise<boolean>,
  ): Promise<Delivery[]> {
    const n = this.partitions.length;
    const got: Delivery[] = [];
    const asked = new Array<boolean>(n).fill(false);
    const first = this.nextTurn(kind);
    let quota = spread(
      wanted,
      this.partitions.map((_, p) => p === first),
      0,
    );
    let round = 0;
    for (; ; round++) {
      const reads = await Promise.all(
        this.partitions.map(async (partition, p) => {
          if (quota[p]! < 1) return null;
          asked[p] = true;
          return (await take(partition, quota[p]!)).map((d) => this.route.qualifyDelivery(p, d));
        }),
      );
      for (const read of reads) if (read) got.push(...read);
      const left = wanted - got.length;
      if (left < 1 || n === 1) return got;
      if (round === 0) {
        // The first partition came up short: share the rest over all the others at once.
        quota = spread(
          left,
          this.partitions.map((_, p) => p !== first),
          first,
        );
        continue;
      }
      const candidates = reads.map((read, p) => (read ? read.length >= quota[p]! : !asked[p]));
      const ready = await Promise.all(
        this.partitions.map((partition, p) =>
          candidates[p] ? has(partition) : Promise.resolve(false),
        ),
      );
      if (!ready.includes(true)) return got;
      // The turn moves once per call (every partition first once in N calls); later rounds
      // start their shares further on.
      quota = spread(left, ready, first + round);
    }
  }

  /**
   * New entries. One stream: one XREADGROUP, blocking until `wakeAt` (epoch ms) when there is
   * time to wait — exactly as an unpartitioned queue always read. Partitioned: at once (no
   * BLOCK) from the partitions (see {@link fill}), and when there are none, blocking on every
   * partition until `wakeAt` (PartitionWaits).
   */
  private async readNew(consumer: string, wanted: number, wakeAt: number): Promise<Delivery[]> {
    const waitMs = Math.floor(wakeAt - Date.now());
    if (this.partitions.length === 1)
      return waitMs < 1
        ? this.partitions[0]!.readNow(consumer, wanted)
        : this.readBlocking(0, consumer, wanted, waitMs);
    const got = await this.fill(
      'read',
      wanted,
      (partition, count) => partition.readNow(consumer, count),
      (partition) => partition.hasNew(),
    );
    if (got.length > 0 || wakeAt - Date.now() < 1 || this.closed) return got;
    return this.waits.wait(consumer, wanted, wakeAt, () => this.closed);
  }

  /** One partition's blocking read, on a dedicated connection (BLOCK 0 would mean forever). */
  private async readBlocking(
    p: number,
    consumer: string,
    count: number,
    waitMs: number,
  ): Promise<Delivery[]> {
    const partition = this.partitions[p]!;
    const deliveries = await partition.readBlocking(consumer, count, Math.max(1, waitMs), (run) =>
      this.blocking.use(`receive on ${partition.keys.stream}`, run),
    );
    return deliveries.map((d) => this.route.qualifyDelivery(p, d));
  }

  private nextTurn(kind: 'read' | 'reclaim'): number {
    const turn = this.turns[kind];
    this.turns[kind] = (turn + 1) % this.partitions.length;
    return turn;
  }

  /** Runs driver calls with bounded waiting; failures arrive classified (see RedisConnection). */
  private op<T>(operation: string, keys: QueueKeys, fn: (client: Redis) => Promise<T>): Promise<T> {
    if (this.closed) return this.rejectClosed();
    return this.connection.call(`${operation} on ${keys.stream}`, (client) => fn(client as Redis));
  }

  private assertOpen(): void {
    if (this.closed) throw this.closedError();
  }

  private rejectClosed<T>(): Promise<T> {
    return Promise.reject(this.closedError());
  }

  private closedError(): StoreClosedError {
    return new StoreClosedError(`the task queue ${this.partitions[0]!.keys.stream} is closed`);
  }
}

/** `left` split over the partitions marked `more` (the others get nothing). */
function spread(left: number, more: readonly boolean[], offset: number): number[] {
  const open = more.flatMap((m, p) => (m ? [p] : []));
  const split = shares(left, open.length, offset % open.length);
  const quota = more.map(() => 0);
  for (const [i, p] of open.entries()) quota[p] = split[i]!;
  return quota;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}
