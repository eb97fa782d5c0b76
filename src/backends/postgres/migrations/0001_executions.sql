-- Executions (docs/durable-contract.md §1, §3), created in the store's schema (the migrator sets search_path).
-- Times are epoch milliseconds from the writing process's clock (Date.now()): leases, expiry
-- and the list order compare integers the same way on every backend. The exact ISO strings of
-- the state are in `header` and `summary`.
--
-- `header`, `summary` and `value` are `json`, not `jsonb`: json keeps the codec's text byte for
-- byte, while jsonb reorders object keys (a state loads back with its keys in a different
-- order, and `$VISITS` order is what rebuilds `$NODE` order) and measured ~2.7x slower to write
-- and ~3x slower to read on a 100 KB document. json still validates what is written and
-- answers `header->'status'` in psql.
--
-- Identifiers use COLLATE "C": byte order, the order SQLite and the memory store use too, so
-- pages come out in the same order on every backend, and btree comparisons stay cheap.
CREATE TABLE executions (
  tenant_id        text COLLATE "C" NOT NULL,
  execution_id     text COLLATE "C" NOT NULL,
  flow_id          text COLLATE "C",
  flow_version     text COLLATE "C",
  flow_hash        text COLLATE "C",
  status           text NOT NULL CHECK (status IN ('queued', 'running', 'suspended', 'completed', 'error', 'cancelled')),
  version          bigint NOT NULL,
  created_at       bigint NOT NULL,
  updated_at       bigint NOT NULL,
  ended_at         bigint,
  -- Set when the status is terminal: the row is gone for every read once passed, and swept.
  expires_at       bigint,
  header           json NOT NULL,
  header_bytes     integer NOT NULL,
  -- What `list` returns (ExecutionSummary through the codec), so listing never reads a header.
  summary          json NOT NULL,
  -- header_bytes + the bytes of every node result: the size guard of incremental saves.
  state_bytes      bigint NOT NULL,
  -- The seq the next new node result gets (keeps the order results were first recorded).
  next_seq         integer NOT NULL DEFAULT 0,
  lease_owner      text,
  lease_generation bigint NOT NULL DEFAULT 0,
  lease_expires_at bigint,
  cancel_requested boolean NOT NULL DEFAULT false,
  PRIMARY KEY (tenant_id, execution_id)
) WITH (fillfactor = 80); -- room for HOT updates: most saves rewrite a row without touching an index

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
-- U+0000 and lone surrogates included, fits a text column.
CREATE TABLE node_results (
  tenant_id    text COLLATE "C" NOT NULL,
  execution_id text COLLATE "C" NOT NULL,
  node_id      text COLLATE "C" NOT NULL,
  seq          integer NOT NULL,
  value        json NOT NULL,
  bytes        integer NOT NULL,
  PRIMARY KEY (tenant_id, execution_id, node_id)
);
