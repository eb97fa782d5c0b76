import type { Redis } from 'ioredis';
import { redisReplyCode } from '../classify-redis-error.js';
import type { RedisClient } from '../redis-connection.js';
import type { DeadLetter, Delivery } from '../../../queue/task-queue.js';
import type { QueueKeys } from './redis-stream-keys.js';
import { SCRIPTS } from './redis-stream-scripts.js';
import {
  claimedDeliveries,
  newDeliveries,
  queueStats,
  STREAM_ID,
  toDeadLetter,
} from './stream-replies.js';

/** Runs driver calls as one bounded, classified step on the queue's connection. */
export type PartitionOp = <T>(
  operation: string,
  partition: QueueKeys,
  fn: (client: Redis) => Promise<T>,
) => Promise<T>;

export type QueueStats = ReturnType<typeof queueStats>;

/** A waiting delayed message: its timer id (random or the caller's dedupId), due time, payload. */
export interface DelayedTimer {
  id: string;
  dueMs: number;
  payload: string;
}

/**
 * One stream of a queue with its delayed set, timer payloads and dead letters — all under one
 * hash tag, so every command and script here touches one slot. It knows nothing of the other
 * partitions: RedisStreamQueue routes messages to partitions and merges what they answer.
 * Stream ids here are the partition's own (`<ms>-<seq>`).
 */
export class StreamPartition {
  #groupCreated: Promise<void> | null = null;
  /** Where the next XAUTOCLAIM scan continues, so a long pending list is covered over calls. */
  #claimCursor = '0-0';

  constructor(
    readonly keys: QueueKeys,
    private readonly group: string,
    private readonly op: PartitionOp,
  ) {}

  add(payloads: readonly string[]): Promise<string[]> {
    return this.op('enqueue', this.keys, async (client) => {
      if (payloads.length === 1)
        return [String(await client.call('XADD', this.keys.stream, '*', 'payload', payloads[0]!))];
      const ids = await SCRIPTS.addTasks.run(client, [this.keys.stream], payloads);
      if (!Array.isArray(ids) || ids.length !== payloads.length)
        throw new TypeError('add-tasks.lua: unexpected reply');
      return ids.map(String);
    });
  }

  async ack(ids: readonly string[]): Promise<void> {
    // An id that is no stream id names no entry (acking it is a no-op); sent along, Redis would
    // refuse the whole batch for it.
    const valid = [...new Set(ids)].filter((id) => STREAM_ID.test(id));
    if (valid.length === 0) return;
    await this.op('ack', this.keys, (client) =>
      SCRIPTS.ack.run(client, [this.keys.stream], [this.group, ...valid]),
    );
  }

  async renew(id: string, consumer: string): Promise<boolean> {
    const renewed = await this.groupOp('renew', (client) =>
      SCRIPTS.renew.run(client, [this.keys.stream], [this.group, consumer, id]),
    );
    return renewed === 1;
  }

  async deadLetter(id: string, dlqMaxLen: number, fields: readonly string[]): Promise<void> {
    await this.groupOp('deadLetter', (client) =>
      SCRIPTS.deadLetter.run(
        client,
        [this.keys.stream, this.keys.deadLetters],
        [this.group, id, dlqMaxLen, ...fields],
      ),
    );
  }

  async schedule(timerId: string, dueMs: number, payload: string): Promise<void> {
    await this.op('enqueue', this.keys, (client) =>
      SCRIPTS.scheduleDelayed.run(
        client,
        [this.keys.delayed, this.keys.timers],
        [timerId, dueMs, payload],
      ),
    );
  }

  async cancelDelayed(timerId: string): Promise<boolean> {
    const removed = await this.op('cancelDelayed', this.keys, (client) =>
      SCRIPTS.cancelDelayed.run(client, [this.keys.delayed, this.keys.timers], [timerId]),
    );
    return removed === 1;
  }

  /**
   * The first `limit` waiting timers by due time, read only (two reads of one slot; a timer
   * promoted or cancelled in between comes back without a payload and is left out).
   */
  async delayedTimers(limit: number): Promise<DelayedTimer[]> {
    return this.op('delayedTimers', this.keys, async (client) => {
      const flat = (await client.call(
        'ZRANGE',
        this.keys.delayed,
        0,
        limit - 1,
        'WITHSCORES',
      )) as string[];
      const ids = flat.filter((_, i) => i % 2 === 0);
      if (ids.length === 0) return [];
      const payloads = (await client.call('HMGET', this.keys.timers, ...ids)) as (string | null)[];
      return ids.flatMap((id, i) => {
        const payload = payloads[i];
        return typeof payload === 'string' ? [{ id, dueMs: Number(flat[i * 2 + 1]), payload }] : [];
      });
    });
  }

  /** Moves due timers to the stream; `nextDueMs` = the earliest timer still waiting (null: none). */
  async promote(now: number, batch: number): Promise<{ moved: number; nextDueMs: number | null }> {
    const reply = await this.op('promoteDue', this.keys, (client) =>
      SCRIPTS.promoteDue.run(
        client,
        [this.keys.delayed, this.keys.timers, this.keys.stream],
        [Math.floor(now), batch],
      ),
    );
    const [count, nextDue] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const nextDueMs = nextDue === null || nextDue === undefined ? null : Number(nextDue);
    return { moved: Number(count ?? 0), nextDueMs };
  }

  async claimExpired(consumer: string, visibilityMs: number, max: number): Promise<Delivery[]> {
    const reply = await this.groupOp('receive', (client) =>
      SCRIPTS.claimExpired.run(
        client,
        [this.keys.stream],
        [this.group, consumer, visibilityMs, max, this.#claimCursor],
      ),
    );
    const { cursor, deliveries } = claimedDeliveries(reply);
    this.#claimCursor = STREAM_ID.test(cursor) ? cursor : '0-0';
    return deliveries;
  }

  /** Deletes consumers with nothing pending, unseen for `idleMs` (`prune-consumers.lua`). */
  async pruneConsumers(idleMs: number): Promise<number> {
    const deleted = await this.op('pruneConsumers', this.keys, (client) =>
      SCRIPTS.pruneConsumers.run(client, [this.keys.stream], [this.group, idleMs]),
    );
    return Number(deleted);
  }

  /** True when an entry has waited at least `visibilityMs` unacknowledged (read only). */
  async hasExpired(visibilityMs: number): Promise<boolean> {
    const reply = await this.groupOp('receive', (client) =>
      client.call('XPENDING', this.keys.stream, this.group, 'IDLE', visibilityMs, '-', '+', 1),
    );
    return Array.isArray(reply) && reply.length > 0;
  }

  /** True when the stream holds an entry the group has not delivered yet (`has-new.lua`, read only). */
  async hasNew(): Promise<boolean> {
    const reply = await this.op('receive', this.keys, (client) =>
      SCRIPTS.hasNew.run(client, [this.keys.stream], [this.group]),
    );
    return reply === 1;
  }

  /** New entries at once (no BLOCK), on the queue's shared connection. */
  async readNow(consumer: string, count: number): Promise<Delivery[]> {
    return newDeliveries(
      await this.groupOp('receive', (client) =>
        client.call('XREADGROUP', ...this.#readArgs(consumer, count), ...this.#streams()),
      ),
    );
  }

  /** New entries, blocking up to `waitMs` (≥ 1) on a connection `on` lends for it. */
  async readBlocking(
    consumer: string,
    count: number,
    waitMs: number,
    on: <T>(run: (client: Redis) => Promise<T>) => Promise<T>,
  ): Promise<Delivery[]> {
    const read = (client: Redis): Promise<unknown> =>
      client.call(
        'XREADGROUP',
        ...this.#readArgs(consumer, count),
        'BLOCK',
        waitMs,
        ...this.#streams(),
      );
    return newDeliveries(await this.withGroup(read, on));
  }

  /** Dead letters newest first, up to `count`, from `end` (a Redis XREVRANGE end: `+`, `(id`, `id`). */
  async deadLetters(end: string, count: number): Promise<DeadLetter[]> {
    const reply = await this.op('listDeadLetters', this.keys, (client) =>
      client.call('XREVRANGE', this.keys.deadLetters, end, '-', 'COUNT', count),
    );
    const entries = (Array.isArray(reply) ? (reply as unknown[]) : []).filter(Array.isArray);
    return entries.map((e) => toDeadLetter(String(e[0]), e[1]));
  }

  /** The re-enqueued message's stream id, or null when there was no such dead letter. */
  async replayDeadLetter(id: string): Promise<string | null> {
    const newId = await this.op('replayDeadLetter', this.keys, (client) =>
      SCRIPTS.replayDeadLetter.run(client, [this.keys.deadLetters, this.keys.stream], [id]),
    );
    return typeof newId === 'string' ? newId : null;
  }

  async purgeDeadLetters(): Promise<number> {
    return Number(
      await this.op('purgeDeadLetters', this.keys, (client) =>
        SCRIPTS.purgeDeadLetters.run(client, [this.keys.deadLetters], []),
      ),
    );
  }

  async stats(): Promise<QueueStats> {
    const reply = await this.op('stats', this.keys, (client) =>
      SCRIPTS.stats.run(
        client,
        [this.keys.stream, this.keys.delayed, this.keys.deadLetters],
        [this.group],
      ),
    );
    return queueStats(reply);
  }

  #readArgs(consumer: string, count: number): (string | number)[] {
    return ['GROUP', this.group, consumer, 'COUNT', count];
  }

  #streams(): string[] {
    return ['STREAMS', this.keys.stream, '>'];
  }

  /** `op` for commands that need the consumer group. */
  private groupOp<T>(operation: string, fn: (client: Redis) => Promise<T>): Promise<T> {
    return this.withGroup(fn, (run) => this.op(operation, this.keys, run));
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
      await this.#ensureGroup(client);
      try {
        return await fn(client);
      } catch (error) {
        if (redisReplyCode(error) !== 'NOGROUP') throw error;
        this.#groupCreated = null;
        await this.#ensureGroup(client);
        return await fn(client);
      }
    });
  }

  #ensureGroup(client: RedisClient): Promise<void> {
    this.#groupCreated ??= createGroup(client, this.keys.stream, this.group).catch(
      (error: unknown) => {
        this.#groupCreated = null;
        throw error;
      },
    );
    return this.#groupCreated;
  }
}

/** Starts at id 0 so messages enqueued before any worker existed are delivered too. */
async function createGroup(client: RedisClient, stream: string, group: string): Promise<void> {
  try {
    await client.call('XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM');
  } catch (error) {
    if (redisReplyCode(error) !== 'BUSYGROUP') throw error;
  }
}
