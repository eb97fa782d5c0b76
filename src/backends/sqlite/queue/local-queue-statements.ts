import type BetterSqlite3 from 'better-sqlite3';

export interface DeadLetterRow {
  queue: string;
  reason: string;
  lastError: string | null;
  deliveryCount: number;
  payload: string;
  executionId: string | null;
  at: string;
}

/**
 * The prepared statements of LocalQueue (tables: `migrations/0001_queue_tables.sql`). Named parameters;
 * times are epoch ms. Each statement is one atomic step on its own.
 */
export class LocalQueueStatements {
  readonly insert: BetterSqlite3.Statement;
  readonly schedule: BetterSqlite3.Statement;
  readonly probe: BetterSqlite3.Statement;
  readonly promote: BetterSqlite3.Statement;
  readonly claim: BetterSqlite3.Statement;
  readonly renew: BetterSqlite3.Statement;
  readonly delete: BetterSqlite3.Statement;
  readonly cancelTimer: BetterSqlite3.Statement;
  readonly insertDeadLetter: BetterSqlite3.Statement;
  readonly trimDeadLetters: BetterSqlite3.Statement;
  readonly listDeadLetters: BetterSqlite3.Statement;
  readonly findDeadLetter: BetterSqlite3.Statement;
  readonly takeDeadLetter: BetterSqlite3.Statement;
  readonly purgeDeadLetters: BetterSqlite3.Statement;
  readonly stats: BetterSqlite3.Statement;

  constructor(db: BetterSqlite3.Database) {
    this.insert = db.prepare(
      `INSERT INTO queue_messages (queue, payload, available_at, enqueued_at)
       VALUES (@queue, @payload, @now, @now) RETURNING id`,
    );
    this.schedule = db.prepare(
      `INSERT INTO queue_messages (queue, payload, available_at, enqueued_at, timer_id)
       VALUES (@queue, @payload, @due, @now, @timerId)
       ON CONFLICT (queue, timer_id) WHERE timer_id IS NOT NULL DO NOTHING`,
    );
    // Read-only probes (no write lock): are there due timers to promote, rows to claim?
    this.probe = db.prepare(
      `SELECT
         EXISTS (SELECT 1 FROM queue_messages
                 WHERE queue = @queue AND timer_id IS NOT NULL AND available_at <= @now) AS due,
         EXISTS (SELECT 1 FROM queue_messages
                 WHERE queue = @queue AND available_at <= @now AND timer_id IS NULL) AS ready`,
    );
    // A promoted timer is ready now even when promoted ahead of its due time (promoteDue(now)).
    this.promote = db.prepare(
      `UPDATE queue_messages SET timer_id = NULL, available_at = MIN(available_at, @clock)
       WHERE id IN (SELECT id FROM queue_messages
                    WHERE queue = @queue AND timer_id IS NOT NULL AND available_at <= @now
                    ORDER BY available_at LIMIT @max)`,
    );
    // Claimable = available now and not a pending timer: never delivered, or a claim whose
    // visibility timeout ran out (a claim moves available_at to its expiry).
    this.claim = db.prepare(
      `UPDATE queue_messages
       SET claimed_by = @consumer, available_at = @until, delivery_count = delivery_count + 1
       WHERE id IN (SELECT id FROM queue_messages
                    WHERE queue = @queue AND available_at <= @now AND timer_id IS NULL
                    ORDER BY available_at, id LIMIT @max)
       RETURNING id, payload, delivery_count`,
    );
    this.renew = db.prepare(
      `UPDATE queue_messages SET available_at = @until
       WHERE id = @id AND queue = @queue AND claimed_by = @consumer`,
    );
    this.delete = db.prepare(`DELETE FROM queue_messages WHERE id = @id AND queue = @queue`);
    this.cancelTimer = db.prepare(
      `DELETE FROM queue_messages WHERE queue = @queue AND timer_id = @timerId`,
    );
    this.insertDeadLetter = db.prepare(
      `INSERT INTO queue_dead_letters (queue, reason, last_error, delivery_count, payload, execution_id, at)
       VALUES (@queue, @reason, @lastError, @deliveryCount, @payload, @executionId, @at)`,
    );
    // Keeps the newest @keep dead letters of the queue.
    this.trimDeadLetters = db.prepare(
      `DELETE FROM queue_dead_letters WHERE queue = @queue AND id <= (
         SELECT id FROM queue_dead_letters WHERE queue = @queue ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    );
    this.listDeadLetters = db.prepare(
      `SELECT id, reason, last_error, delivery_count, payload, execution_id, at FROM queue_dead_letters
       WHERE queue = @queue AND (@before IS NULL OR id < @before)
       ORDER BY id DESC LIMIT @limit`,
    );
    this.findDeadLetter = db.prepare(
      `SELECT id, reason, last_error, delivery_count, payload, execution_id, at FROM queue_dead_letters
       WHERE id = @id AND queue = @queue`,
    );
    this.takeDeadLetter = db.prepare(
      `DELETE FROM queue_dead_letters WHERE id = @id AND queue = @queue RETURNING payload`,
    );
    this.purgeDeadLetters = db.prepare(`DELETE FROM queue_dead_letters WHERE queue = @queue`);
    this.stats = db.prepare(
      `SELECT
         COALESCE(SUM(claimed_by IS NULL AND timer_id IS NULL), 0) AS ready,
         COALESCE(SUM(claimed_by IS NOT NULL), 0) AS inFlight,
         COALESCE(SUM(timer_id IS NOT NULL), 0) AS delayed,
         MIN(CASE WHEN claimed_by IS NULL AND timer_id IS NULL THEN available_at END) AS oldestReadyAt,
         (SELECT COUNT(*) FROM queue_dead_letters WHERE queue = @queue) AS deadLetters
       FROM queue_messages WHERE queue = @queue`,
    );
  }
}
