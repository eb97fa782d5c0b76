import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisReplyCode } from '../../backends/redis/classify-redis-error.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../backends/connect-timeout.js';
import { RedisConnection } from '../../backends/redis/redis-connection.js';
import { StoreClosedError } from '../../errors.js';
import { TickBatch } from '../../backends/redis/tick-batch.js';
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
} from '../task-queue.js';
import { encodeTaskMessage, type TaskMessage } from '../task-message.js';
import { BlockingConnections } from './blocking-connections.js';
import { SCRIPTS } from './redis-stream-scripts.js';
import { ScanSchedule } from './scan-schedule.js';
import { type QueueKeys, queueKeys } from './redis-stream-keys.js';
import {
  claimedDeliveries,
  newDeliveries,
  queueStats,
  STREAM_ID,
  toDeadLetter,
} from './stream-replies.js';

/** `{client}` must be a single-node ioredis client (blocking reads duplicate it). */
export type RedisStreamQueueConnection = { url: string } | { client: Redis };

export interface RedisStreamQueueOptions extends TaskQueueOptions {
  /** Stream name, also the hash tag of every key of this queue. Default `plaita:tasks`. */
  stream?: string;
  /** Consumer group shared by all workers. Default `plaita-workers`. */
  group?: string;
  /** Prepended to every key (outside the hash tag), e.g. to isolate tests. Default none. */
  prefix?: string;
  /** Upper bound for one non-blocking command, ms. Default 5 s. */
  commandTimeoutMs?: number;
  /** Due timers moved per promoteDue call at most. Default 500. */
  promoteBatchSize?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;
const DEFAULT_PROMOTE_BATCH = 500;
const DEFAULT_LIST_LIMIT = 100;

/**
 * The distributed task queue: one Redis stream read by one consumer group (docs/durable-contract.md §4).
 * Delivery counts, visibility and ownership are the stream's pending-entries list; every
 * multi-step transition is one Lua script (see the `.lua` files beside this module).
 *
 * `{url}`: the queue owns its connections. `{client}`: the caller's client is used and left
 * open by `close()` (blocking reads still use connections duplicated from it, which are closed).
 * A client with ioredis `keyPrefix` is not supported: use the `prefix` option.
 */
export class RedisStreamQueue implements TaskQueue {
  private readonly connection: RedisConnection;
  private readonly keys: QueueKeys;
  private readonly group: string;
  private readonly visibilityTimeoutMs: number;
  private readonly dlqMaxLen: number;
  private readonly promoteBatchSize: number;
  private readonly blocking: BlockingConnections;
  private groupCreated: Promise<void> | null = null;
  /** Where the next XAUTOCLAIM scan continues, so a long pending list is covered over calls. */
  private claimCursor = '0-0';
  private readonly schedule: ScanSchedule;
  private closed = false;
  /**
   * Group commit (see TickBatch): the enqueues and the acks of one tick each go out as one
   * command. A worker finishing several executions at once, or a client starting many, sends
   * one round of commands instead of one per message.
   */
  private readonly adds = new TickBatch<string, string>((_, payloads) => this.addAll(payloads));
  private readonly acks = new TickBatch<string>((_, ids) => this.ackAll(ids));

  constructor(connection: RedisStreamQueueConnection, options: RedisStreamQueueOptions = {}) {
    this.keys = queueKeys(options.stream ?? 'plaita:tasks', options.prefix ?? '');
    this.group = options.group ?? 'plaita-workers';
    this.visibilityTimeoutMs = positive(
      options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS,
      'visibilityTimeoutMs',
    );
    this.dlqMaxLen = positive(options.dlqMaxLen ?? DEFAULT_DLQ_MAX_LEN, 'dlqMaxLen');
    this.schedule = new ScanSchedule(this.visibilityTimeoutMs);
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
    this.blocking = new BlockingConnections(this.connection.client as Redis, {
      connectTimeoutMs,
      commandTimeoutMs,
      maxBlockMs: this.visibilityTimeoutMs,
    });
  }

  async enqueue(message: TaskMessage, options: EnqueueOptions = {}): Promise<string> {
    const payload = encodeTaskMessage(message);
    const delayMs = options.delayMs ?? 0;
    if (delayMs <= 0) return this.adds.add('', payload);
    return this.op('enqueue', async (client) => {
      const timerId = options.dedupId ?? randomUUID();
      const dueMs = Date.now() + delayMs;
      await SCRIPTS.scheduleDelayed.run(
        client,
        [this.keys.delayed, this.keys.timers],
        [timerId, dueMs, payload],
      );
      this.schedule.scheduled(dueMs);
      return timerId;
    });
  }

  /**
   * Order of work: promote due timers, reclaim expired deliveries (redeliveries first, so a
   * dead consumer's messages do not starve behind new ones), then read new entries — the two
   * scans on the schedule of ScanSchedule, not on every call. While nothing is there it blocks
   * on XREADGROUP in slices that end when the next scan or the next known timer is due.
   */
  async receive(consumer: string, options: ReceiveOptions): Promise<Delivery[]> {
    if (options.max < 1) return [];
    const deadline = Date.now() + Math.max(0, options.blockMs);
    for (;;) {
      const claimed = await this.scan(consumer, options.max);
      const wanted = options.max - claimed.length;
      const waitMs =
        claimed.length > 0 ? 0 : Math.min(deadline, this.schedule.wakeAt()) - Date.now();
      const fresh = wanted > 0 ? await this.readNew(consumer, wanted, Math.floor(waitMs)) : [];
      const deliveries = [...claimed, ...fresh];
      if (deliveries.length > 0 || Date.now() >= deadline || this.closed) return deliveries;
    }
  }

  ack(delivery: Delivery): Promise<void> {
    return this.acks.add('', delivery.id);
  }

  async renew(delivery: Delivery, consumer: string): Promise<boolean> {
    const renewed = await this.groupOp('renew', (client) =>
      SCRIPTS.renew.run(client, [this.keys.stream], [this.group, consumer, delivery.id]),
    );
    return renewed === 1;
  }

  async deadLetter(
    delivery: Delivery,
    reason: string,
    lastError: string | null = null,
  ): Promise<void> {
    const executionId = executionIdOf(delivery);
    // prettier-ignore
    const fields = [
      'reason', reason,
      ...(lastError === null ? [] : ['lastError', lastError]),
      'deliveryCount', String(delivery.deliveryCount),
      'payload', delivery.payload,
      ...(executionId === null ? [] : ['executionId', executionId]),
      'at', new Date().toISOString(),
    ];
    await this.groupOp('deadLetter', (client) =>
      SCRIPTS.deadLetter.run(
        client,
        [this.keys.stream, this.keys.deadLetters],
        [this.group, delivery.id, this.dlqMaxLen, ...fields],
      ),
    );
  }

  async promoteDue(now: number = Date.now()): Promise<number> {
    return (await this.promote(now)).moved;
  }

  async cancelDelayed(id: string): Promise<boolean> {
    const removed = await this.op('cancelDelayed', (client) =>
      SCRIPTS.cancelDelayed.run(client, [this.keys.delayed, this.keys.timers], [id]),
    );
    return removed === 1;
  }

  async listDeadLetters(
    options: { limit?: number; cursor?: string | null } = {},
  ): Promise<{ items: DeadLetter[]; nextCursor: string | null }> {
    const limit = positive(options.limit ?? DEFAULT_LIST_LIMIT, 'limit');
    const cursor = options.cursor ?? null;
    if (cursor !== null && !STREAM_ID.test(cursor))
      throw new TypeError(`invalid dead-letter cursor ${JSON.stringify(cursor)}`);
    // Newest first; the cursor is the last id of the previous page, excluded with `(`.
    const reply = await this.op('listDeadLetters', (client) =>
      client.call(
        'XREVRANGE',
        this.keys.deadLetters,
        cursor === null ? '+' : `(${cursor}`,
        '-',
        'COUNT',
        limit + 1,
      ),
    );
    const entries = (Array.isArray(reply) ? (reply as unknown[]) : []).filter(Array.isArray);
    const items = entries.slice(0, limit).map((e) => toDeadLetter(String(e[0]), e[1]));
    return { items, nextCursor: entries.length > limit ? (items.at(-1)?.id ?? null) : null };
  }

  async replayDeadLetter(id: string): Promise<boolean> {
    if (!STREAM_ID.test(id)) return false;
    const newId = await this.op('replayDeadLetter', (client) =>
      SCRIPTS.replayDeadLetter.run(client, [this.keys.deadLetters, this.keys.stream], [id]),
    );
    return newId !== null;
  }

  async purgeDeadLetters(): Promise<number> {
    return Number(
      await this.op('purgeDeadLetters', (client) =>
        SCRIPTS.purgeDeadLetters.run(client, [this.keys.deadLetters], []),
      ),
    );
  }

  /**
   * `ready` = stream entries not pending in the group (never delivered); `inFlight` = pending
   * entries, including expired ones not yet reclaimed; `oldestReadyAgeMs` = server time minus
   * the timestamp in the id of the first never-delivered entry (approximate: it ignores expired
   * pending entries waiting for redelivery, and a promoted timer counts from its promotion).
   */
  async stats(): Promise<{
    ready: number;
    inFlight: number;
    delayed: number;
    deadLetters: number;
    oldestReadyAgeMs: number | null;
  }> {
    const reply = await this.op('stats', (client) =>
      SCRIPTS.stats.run(
        client,
        [this.keys.stream, this.keys.delayed, this.keys.deadLetters],
        [this.group],
      ),
    );
    return queueStats(reply);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.blocking.close();
    await this.connection.close();
  }

  private addAll(payloads: readonly string[]): Promise<string[]> {
    return this.op('enqueue', async (client) => {
      if (payloads.length === 1)
        return [String(await client.call('XADD', this.keys.stream, '*', 'payload', payloads[0]!))];
      const ids = await SCRIPTS.addTasks.run(client, [this.keys.stream], payloads);
      if (!Array.isArray(ids) || ids.length !== payloads.length)
        throw new TypeError('add-tasks.lua: unexpected reply');
      return ids.map(String);
    });
  }

  private async ackAll(ids: readonly string[]): Promise<void> {
    // An id that is no stream id names no entry (acking it is a no-op); sent along, Redis would
    // refuse the whole batch for it.
    const valid = [...new Set(ids)].filter((id) => STREAM_ID.test(id));
    if (valid.length === 0) return;
    await this.op('ack', (client) =>
      SCRIPTS.ack.run(client, [this.keys.stream], [this.group, ...valid]),
    );
  }

  private async promote(now: number): Promise<{ moved: number; nextDueMs: number | null }> {
    const reply = await this.op('promoteDue', (client) =>
      SCRIPTS.promoteDue.run(
        client,
        [this.keys.delayed, this.keys.timers, this.keys.stream],
        [Math.floor(now), this.promoteBatchSize],
      ),
    );
    const [count, nextDue] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const moved = Number(count ?? 0);
    const nextDueMs = nextDue === null || nextDue === undefined ? null : Number(nextDue);
    // The schedule runs on the real clock, also when a caller promotes with a `now` of its own.
    this.schedule.promoted(Date.now(), moved, this.promoteBatchSize, nextDueMs);
    return { moved, nextDueMs };
  }

  /**
   * The scans that are due, sent together (one round trip). Claimed deliveries are never
   * dropped because the promotion failed: they are returned, the failure surfaces next time.
   */
  private async scan(consumer: string, max: number): Promise<Delivery[]> {
    const now = Date.now();
    const [promoted, claimed] = await Promise.allSettled([
      this.schedule.shouldPromote(now) ? this.promote(now) : null,
      this.schedule.shouldClaim(now) ? this.claimExpired(consumer, max) : [],
    ]);
    if (claimed.status === 'rejected') throw claimed.reason;
    if (promoted.status === 'rejected' && claimed.value.length === 0) throw promoted.reason;
    return claimed.value;
  }

  private async claimExpired(consumer: string, max: number): Promise<Delivery[]> {
    const reply = await this.groupOp('receive', (client) =>
      SCRIPTS.claimExpired.run(
        client,
        [this.keys.stream],
        [this.group, consumer, this.visibilityTimeoutMs, max, this.claimCursor],
      ),
    );
    const { cursor, deliveries } = claimedDeliveries(reply);
    this.claimCursor = STREAM_ID.test(cursor) ? cursor : '0-0';
    this.schedule.claimed(Date.now(), deliveries.length, max);
    return deliveries;
  }

  /** New entries; blocks on a dedicated connection when `waitMs` ≥ 1 (BLOCK 0 would mean forever). */
  private async readNew(consumer: string, count: number, waitMs: number): Promise<Delivery[]> {
    const args = ['GROUP', this.group, consumer, 'COUNT', count];
    const streams = ['STREAMS', this.keys.stream, '>'];
    if (waitMs < 1)
      return newDeliveries(
        await this.groupOp('receive', (client) => client.call('XREADGROUP', ...args, ...streams)),
      );
    try {
      const read = (client: Redis): Promise<unknown> =>
        client.call('XREADGROUP', ...args, 'BLOCK', waitMs, ...streams);
      return newDeliveries(
        await this.withGroup(read, (run) =>
          this.blocking.use(`receive on ${this.keys.stream}`, run),
        ),
      );
    } catch (error) {
      // close() disconnects the blocking connections: a receive cut off by it just ends empty.
      if (this.closed) return [];
      throw error;
    }
  }

  /** Runs driver calls with bounded waiting; failures arrive classified (see RedisConnection). */
  private op<T>(operation: string, fn: (client: Redis) => Promise<T>): Promise<T> {
    if (this.closed)
      return Promise.reject(new StoreClosedError(`the task queue ${this.keys.stream} is closed`));
    return this.connection.call(`${operation} on ${this.keys.stream}`, (client) =>
      fn(client as Redis),
    );
  }

  /** `op` for commands that need the consumer group. */
  private groupOp<T>(operation: string, fn: (client: Redis) => Promise<T>): Promise<T> {
    return this.withGroup(fn, (run) => this.op(operation, run));
  }

  /**
   * Creates the consumer group on first use, and again when a command finds it gone (the
   * stream was deleted, or a server restarted without persistence), then retries once.
   */
  private withGroup<T>(
    fn: (client: Redis) => Promise<T>,
    on: (run: (client: Redis) => Promise<T>) => Promise<T>,
  ): Promise<T> {
    return on(async (client) => {
      await this.ensureGroup(client);
      try {
        return await fn(client);
      } catch (error) {
        if (redisReplyCode(error) !== 'NOGROUP') throw error;
        this.groupCreated = null;
        await this.ensureGroup(client);
        return await fn(client);
      }
    });
  }

  private ensureGroup(client: Redis): Promise<void> {
    this.groupCreated ??= createGroup(client, this.keys.stream, this.group).catch(
      (error: unknown) => {
        this.groupCreated = null;
        throw error;
      },
    );
    return this.groupCreated;
  }
}

/** Starts at id 0 so messages enqueued before any worker existed are delivered too. */
async function createGroup(client: Redis, stream: string, group: string): Promise<void> {
  try {
    await client.call('XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM');
  } catch (error) {
    if (redisReplyCode(error) !== 'BUSYGROUP') throw error;
  }
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}
