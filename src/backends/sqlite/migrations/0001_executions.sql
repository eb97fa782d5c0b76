-- Executions (docs/durable-contract.md §1, §3). One row per execution: the indexed columns, the header (every
-- state field and the context without `$NODE`, through the state codec) and the lease.
-- Times are epoch milliseconds from the writing process's clock (Date.now()); the exact ISO
-- strings of the state are in `header` and `summary`.
CREATE TABLE executions (
  tenant_id        TEXT    NOT NULL,
  execution_id     TEXT    NOT NULL,
  flow_id          TEXT,
  flow_version     TEXT,
  flow_hash        TEXT,
  status           TEXT    NOT NULL CHECK (status IN ('queued', 'running', 'suspended', 'completed', 'error', 'cancelled')),
  version          INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  ended_at         INTEGER,
  -- Set when the status is terminal: the row is gone for every read once passed, and swept.
  expires_at       INTEGER,
  header           TEXT    NOT NULL,
  header_bytes     INTEGER NOT NULL,
  -- What `list` returns (ExecutionSummary through the codec), so listing never decodes a header.
  summary          TEXT    NOT NULL,
  -- header_bytes + the bytes of every node result: the size guard of incremental saves.
  state_bytes      INTEGER NOT NULL,
  -- The seq the next new node result gets (keeps the order results were first recorded).
  next_seq         INTEGER NOT NULL DEFAULT 0,
  lease_owner      TEXT,
  lease_generation INTEGER NOT NULL DEFAULT 0,
  lease_expires_at INTEGER,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, execution_id)
);

-- One index per list filter, each ending in the keyset order (created_at, execution_id): the
-- list query walks one range backwards and stops after limit + 1 rows.
CREATE INDEX executions_by_created ON executions (tenant_id, created_at, execution_id);
CREATE INDEX executions_by_status ON executions (tenant_id, status, created_at, execution_id);
CREATE INDEX executions_by_flow ON executions (tenant_id, flow_id, created_at, execution_id);
CREATE INDEX executions_by_hash ON executions (tenant_id, flow_hash, created_at, execution_id);
-- Only terminal executions with a TTL have an expiry: the sweep reads this small index.
CREATE INDEX executions_by_expiry ON executions (expires_at) WHERE expires_at IS NOT NULL;

-- One row per `$NODE` entry, written only when it changed, so a checkpoint costs the same on
-- the 200th node as on the first. `node_id` is escaped (jsonb-safe-string) so any node id,
-- U+0000 and lone surrogates included, survives the UTF-8 text column.
CREATE TABLE node_results (
  tenant_id    TEXT    NOT NULL,
  execution_id TEXT    NOT NULL,
  node_id      TEXT    NOT NULL,
  seq          INTEGER NOT NULL,
  value        TEXT    NOT NULL,
  bytes        INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, execution_id, node_id)
);
