-- Task queue tables of the embedded tier (docs/durable-contract.md §4), in the same SQLite file as the
-- execution store. Every name starts with `queue_`; the version lives in `queue_meta`, never in
-- `user_version` (the execution store's).

-- One row per message until it is acknowledged (deleted).
--   available_at: epoch ms when the row may be claimed: the enqueue time, a delayed message's
--     due time, or, while claimed, the end of the visibility timeout. Folding the claim expiry
--     into this one column lets a single index serve new, due and expired messages alike.
--   timer_id: set while the row is a pending delayed message (not yet promoted); unique per
--     queue so scheduling one timer id twice is a no-op.
--   claimed_by / delivery_count: the last consumer and how many times the row was delivered.
-- AUTOINCREMENT: ids are never reused, so a stale delivery can never ack a newer message.
CREATE TABLE queue_messages (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  queue          TEXT    NOT NULL,
  payload        TEXT    NOT NULL,
  available_at   INTEGER NOT NULL,
  timer_id       TEXT,
  claimed_by     TEXT,
  delivery_count INTEGER NOT NULL DEFAULT 0,
  enqueued_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX queue_messages_available ON queue_messages (queue, available_at, id);
CREATE UNIQUE INDEX queue_messages_timer ON queue_messages (queue, timer_id) WHERE timer_id IS NOT NULL;
CREATE INDEX queue_messages_due ON queue_messages (queue, available_at) WHERE timer_id IS NOT NULL;

CREATE TABLE queue_dead_letters (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  queue          TEXT    NOT NULL,
  reason         TEXT    NOT NULL,
  last_error     TEXT,
  delivery_count INTEGER NOT NULL,
  payload        TEXT    NOT NULL,
  execution_id   TEXT,
  at             TEXT    NOT NULL
) STRICT;

CREATE INDEX queue_dead_letters_queue ON queue_dead_letters (queue, id);
