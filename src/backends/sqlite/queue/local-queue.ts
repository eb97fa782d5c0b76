import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { InvalidCursorError, StoreClosedError } from '../../../errors/store-errors.js';
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
import {
  encodeTaskMessage,
  parseTaskMessage,
  type TaskMessage,
} from '../../../queue/task-message.js';
import { classifySqliteError } from '../classify-sqlite-error.js';
import { openSqliteFile } from '../open-sqlite-file.js';
import { migrateQueueSchema } from './local-queue-schema.js';
import { LocalQueueStatements, type DeadLetterRow } from './local-queue-statements.js';
import { notifierKey, notify, waitForNotification } from './queue-notifier.js';
import { TickBatch } from '../../../util/tick-batch.js';
import { type Clock, systemClock } from '../../../util/clock.js';

/** Most enqueues (or acks) committed by one transaction. */
const GROUP_COMMIT_MAX = 256;

export type LocalQueueConnection = { path: string } | { db: BetterSqlite3.Database };

export interface LocalQueueOptions extends TaskQueueOptions {
  /** Several queues can share one file; each sees only its own rows. Default `tasks`. */
  name?: string;
  /** How often a blocked receive looks for rows written by other processes, ms. Default 25. */
  pollIntervalMs?: number;
  /** SQLite busy_timeout for a file this queue opens, ms. Default 5 s. */
  busyTimeoutMs?: number;
  /** Due timers made visible per promoteDue call at most. Default 500. */
  promoteBatchSize?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 25;
const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
const DEFAULT_PROMOTE_BATCH = 500;
const DEFAULT_LIST_LIMIT = 100;

/**
 * The embedded task queue: the semantics of RedisStreamQueue in `queue_*` tables of the SQLite
 * file the execution store uses (docs/durable-contract.md §4). Every transition is one statement or one
 * IMMEDIATE transaction, so several processes on one file never deliver a message twice at once.
 *
 * `{path}`: opens the file with the stores' opener (openSqliteFile: WAL, busy_timeout) and owns
 * it. `{db}`: uses the caller's connection as configured and leaves it open on `close()`.
 */
export class LocalQueue implements TaskQueue {
  private readonly db: BetterSqlite3.Database;
  private readonly owned: boolean;
  private readonly name: string;
  private readonly visibilityTimeoutMs: number;
  private readonly dlqMaxLen: number;
  private readonly pollIntervalMs: number;
  private readonly promoteBatchSize: number;
  private readonly sql: LocalQueueStatements;
  private readonly notifierKey: unknown;
  private readonly clock: Clock;
  /** Wake-ups of this queue's blocked receives, fired by close(). */
  private readonly pendingWaits = new Set<() => void>();
  private closed = false;

  constructor(connection: LocalQueueConnection, options: LocalQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? 'tasks';
    this.visibilityTimeoutMs = positive(
      options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS,
      'visibilityTimeoutMs',
    );
    this.dlqMaxLen = positive(options.dlqMaxLen ?? DEFAULT_DLQ_MAX_LEN, 'dlqMaxLen');
    this.pollIntervalMs = positive(
      options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      'pollIntervalMs',
    );
    this.promoteBatchSize = positive(
      options.promoteBatchSize ?? DEFAULT_PROMOTE_BATCH,
      'promoteBatchSize',
    );
    this.owned = 'path' in connection;
    this.db =
      'path' in connection
        ? openQueueFile(connection.path, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)
        : connection.db;
    try {
      if (!this.owned) migrateQueueSchema(this.db);
      this.sql = new LocalQueueStatements(this.db);
    } catch (error) {
      if (this.owned) this.db.close();
      throw classifySqliteError(error);
    }
    this.notifierKey = notifierKey(this.db);
  }

  /**
   * Group commit: the immediate enqueues and the acks of one turn of the event loop are each
   * written by ONE transaction (one commit instead of one per message); each caller still gets
   * its own id, and a failed commit fails every caller of that batch.
   */
  private readonly inserts = new TickBatch<string, string>(
    (_, payloads) =>
      this.op('enqueue', () => {
        const now = this.clock.now();
        const ids = this.insertMany(payloads, now);
        notify(this.notifierKey);
        return ids;
      }),
    { flushOn: 'turn', maxItems: GROUP_COMMIT_MAX },
  );
  private readonly deletes = new TickBatch<number>(
    (_, ids) => this.op('ack', () => this.deleteMany(ids)),
    { flushOn: 'turn', maxItems: GROUP_COMMIT_MAX },
  );
  // The driver's transaction wrappers, made once (building one costs about a statement).
  #insertAll:
    BetterSqlite3.Transaction<(payloads: readonly string[], now: number) => string[]> | undefined;
  #deleteAll: BetterSqlite3.Transaction<(ids: readonly number[]) => void> | undefined;

  private insertMany(payloads: readonly string[], now: number): string[] {
    this.#insertAll ??= this.db.transaction((batch: readonly string[], at: number) =>
      batch.map((payload) => {
        const row = this.sql.insert.get({ queue: this.name, payload, now: at }) as { id: number };
        return String(row.id);
      }),
    );
    return this.#insertAll.immediate(payloads, now);
  }

  private deleteMany(ids: readonly number[]): void {
    this.#deleteAll ??= this.db.transaction((batch: readonly number[]) => {
      for (const id of batch) this.sql.delete.run({ queue: this.name, id });
    });
    this.#deleteAll.immediate(ids);
  }

  enqueue(message: TaskMessage, options: EnqueueOptions = {}): Promise<string> {
    const payload = encodeTaskMessage(message);
    const delayMs = options.delayMs ?? 0;
    if (delayMs <= 0) return this.inserts.add('', payload); // a closed queue: the batch's op rejects
    return this.op('enqueue', () => {
      const now = this.clock.now();
      const timerId = options.dedupId ?? randomUUID();
      // ON CONFLICT DO NOTHING on (queue, timer_id): a timer id still pending is not scheduled twice.
      this.sql.schedule.run({ queue: this.name, payload, now, due: now + delayMs, timerId });
      return timerId;
    });
  }

  /**
   * Claims with one UPDATE … RETURNING, so two receivers (threads or processes) never get the
   * same row in the same visibility window. While nothing is claimable it waits for an
   * in-process enqueue or polls every pollIntervalMs, up to blockMs.
   */
  async receive(consumer: string, options: ReceiveOptions): Promise<Delivery[]> {
    if (options.max < 1) return [];
    // Real waiting time, on the system clock whatever the queue's clock: a FakeClock that stands
    // still must not hold a receive forever.
    const deadline = Date.now() + Math.max(0, options.blockMs);
    for (;;) {
      const deliveries = await this.op('receive', () => this.claim(consumer, options.max));
      const remaining = deadline - Date.now();
      if (deliveries.length > 0 || remaining <= 0 || this.closed) return deliveries;
      await waitForNotification(
        this.notifierKey,
        Math.min(this.pollIntervalMs, remaining),
        this.pendingWaits,
      );
      if (this.closed) return [];
    }
  }

  ack(delivery: Delivery): Promise<void> {
    return this.deletes.add('', rowId(delivery.id));
  }

  /** Extends the claim only while `consumer` still holds it (the WHERE clause is the check). */
  renew(delivery: Delivery, consumer: string): Promise<boolean> {
    return this.op('renew', () => {
      const until = this.clock.now() + this.visibilityTimeoutMs;
      return (
        this.sql.renew.run({ queue: this.name, id: rowId(delivery.id), consumer, until })
          .changes === 1
      );
    });
  }

  /** Deletes the original and writes the dead letter in one transaction; nothing when already gone. */
  async deadLetter(
    delivery: Delivery,
    reason: string,
    lastError: string | null = null,
  ): Promise<void> {
    const row: DeadLetterRow = {
      queue: this.name,
      reason,
      lastError,
      deliveryCount: delivery.deliveryCount,
      payload: delivery.payload,
      executionId: executionIdOf(delivery),
      at: new Date(this.clock.now()).toISOString(),
    };
    await this.op('deadLetter', () =>
      this.db
        .transaction(() => {
          if (this.sql.delete.run({ queue: this.name, id: rowId(delivery.id) }).changes === 0)
            return;
          this.sql.insertDeadLetter.run(row);
          this.sql.trimDeadLetters.run({ queue: this.name, keep: this.dlqMaxLen });
        })
        .immediate(),
    );
  }

  /** Clears the timer id of due delayed rows, which makes them claimable (and no longer cancellable). */
  promoteDue(now: number = this.clock.now()): Promise<number> {
    return this.op('promoteDue', () => this.promote(now));
  }

  cancelDelayed(id: string): Promise<boolean> {
    return this.op(
      'cancelDelayed',
      () => this.sql.cancelTimer.run({ queue: this.name, timerId: id }).changes > 0,
    );
  }

  listDeadLetters(
    options: { limit?: number; cursor?: string | null } = {},
  ): Promise<{ items: DeadLetter[]; nextCursor: string | null }> {
    const limit = positive(options.limit ?? DEFAULT_LIST_LIMIT, 'limit');
    const cursor = options.cursor ?? null;
    if (cursor !== null && !/^\d+$/.test(cursor))
      return Promise.reject(
        new InvalidCursorError(`invalid dead-letter cursor ${JSON.stringify(cursor)}`),
      );
    return this.op('listDeadLetters', () => {
      const rows = this.sql.listDeadLetters.all({
        queue: this.name,
        before: cursor === null ? null : Number(cursor),
        limit: limit + 1,
      }) as StoredDeadLetter[];
      const items = rows.slice(0, limit).map(toDeadLetter);
      return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
    });
  }

  findDeadLetter(id: string): Promise<DeadLetter | null> {
    if (!/^\d+$/.test(id)) return Promise.resolve(null);
    return this.op('findDeadLetter', () => {
      const row = this.sql.findDeadLetter.get({ queue: this.name, id: Number(id) }) as
        StoredDeadLetter | undefined;
      return row === undefined ? null : toDeadLetter(row);
    });
  }

  replayDeadLetter(id: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return Promise.resolve(false);
    return this.op('replayDeadLetter', () => {
      const replayed = this.db
        .transaction(() => {
          const row = this.sql.takeDeadLetter.get({ queue: this.name, id: Number(id) }) as
            { payload: string } | undefined;
          if (row === undefined) return false;
          this.sql.insert.get({ queue: this.name, payload: row.payload, now: this.clock.now() });
          return true;
        })
        .immediate();
      if (replayed) notify(this.notifierKey);
      return replayed;
    });
  }

  purgeDeadLetters(): Promise<number> {
    return this.op(
      'purgeDeadLetters',
      () => this.sql.purgeDeadLetters.run({ queue: this.name }).changes,
    );
  }

  /**
   * `ready`: claimable rows (never delivered, or promoted timers); `inFlight`: claimed rows,
   * including expired claims not yet reclaimed (as on Redis); `delayed`: unpromoted timers;
   * `oldestReadyAgeMs`: now minus the earliest available_at of a ready row.
   */
  stats(): Promise<{
    ready: number;
    inFlight: number;
    delayed: number;
    deadLetters: number;
    oldestReadyAgeMs: number | null;
  }> {
    return this.op('stats', () => {
      const now = this.clock.now();
      const row = this.sql.stats.get({ queue: this.name }) as StatsRow;
      return {
        ready: row.ready,
        inFlight: row.inFlight,
        delayed: row.delayed,
        deadLetters: row.deadLetters,
        oldestReadyAgeMs: row.oldestReadyAt === null ? null : Math.max(0, now - row.oldestReadyAt),
      };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Enqueues and acks accepted in this turn are written first (group commit holds them).
    await Promise.all([this.inserts.settle(), this.deletes.settle()]);
    if (this.closed) return;
    this.closed = true;
    for (const wake of [...this.pendingWaits]) wake();
    if (this.owned) this.db.close();
  }

  private claim(consumer: string, max: number): Delivery[] {
    const now = this.clock.now();
    // Cheap reads first: an idle poller never takes the write lock the execution store needs,
    // and a receive with no due timer skips the promotion's write.
    const { due, ready } = this.sql.probe.get({ queue: this.name, now }) as {
      due: 0 | 1;
      ready: 0 | 1;
    };
    if (due === 1) this.promote(now);
    else if (ready === 0) return [];
    const rows = this.sql.claim.all({
      queue: this.name,
      consumer,
      now,
      until: now + this.visibilityTimeoutMs,
      max,
    }) as ClaimedRow[];
    return rows
      .sort((a, b) => a.id - b.id)
      .map((row) => ({
        id: String(row.id),
        deliveryCount: row.delivery_count,
        payload: row.payload,
        parsed: parseTaskMessage(row.payload),
      }));
  }

  private promote(now: number): number {
    return this.sql.promote.run({
      queue: this.name,
      now,
      clock: this.clock.now(),
      max: this.promoteBatchSize,
    }).changes;
  }

  /**
   * Runs a synchronous database step; failures go through the SQLite store's classifier
   * (BUSY/LOCKED → StoreUnavailableError). `operation` names the step when the queue is closed.
   */
  private op<T>(operation: string, fn: () => T): Promise<T> {
    if (this.closed)
      return Promise.reject(
        new StoreClosedError(`${operation}: the task queue ${this.name} is closed`),
      );
    try {
      return Promise.resolve(fn());
    } catch (error) {
      const failure = classifySqliteError(error, this.db.name);
      return Promise.reject(failure instanceof Error ? failure : new Error(String(failure)));
    }
  }
}

interface ClaimedRow {
  id: number;
  payload: string;
  delivery_count: number;
}

interface StatsRow {
  ready: number;
  inFlight: number;
  delayed: number;
  deadLetters: number;
  oldestReadyAt: number | null;
}

interface StoredDeadLetter {
  id: number;
  reason: string;
  last_error: string | null;
  delivery_count: number;
  payload: string;
  execution_id: string | null;
  at: string;
}

function toDeadLetter(row: StoredDeadLetter): DeadLetter {
  return {
    id: String(row.id),
    reason: row.reason,
    lastError: row.last_error,
    deliveryCount: row.delivery_count,
    payload: row.payload,
    executionId: row.execution_id,
    at: row.at,
  };
}

/**
 * Opens the file as every SQLite store of plaita does (openSqliteFile: WAL, NORMAL sync, bounded
 * lock waits, temp b-trees in memory — without which each claim's UPDATE … RETURNING writes a
 * temp file) and brings the queue tables up to date. The folder is created first; a path that
 * cannot be opened or is not a database is a StoreConfigurationError naming it.
 */
function openQueueFile(path: string, busyTimeoutMs: number): BetterSqlite3.Database {
  if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
  return openSqliteFile(path, {
    busyTimeoutMs,
    migrate: migrateQueueSchema,
    requiredBy: 'LocalQueue',
  });
}

/** Delivery ids are row ids; anything else matches no row (-1 never exists). */
function rowId(id: string): number {
  return /^\d+$/.test(id) ? Number(id) : -1;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}
