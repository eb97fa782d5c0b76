-- Node results keyed by their execution's row id instead of its (tenant, id). Execution ids
-- are random (crypto.randomUUID()), so keyed by them each execution's results, written on
-- every checkpoint, sat on a b-tree page of their own: concurrent executions dirtied one page
-- each per save. Row ids are handed out in creation order, so the results of executions that
-- run together share the last pages of the b-tree (docs/performance.md, "SQLite").
--
-- The executions table is rebuilt to name its row id (`row_id INTEGER PRIMARY KEY`): an
-- unnamed rowid may be renumbered by VACUUM, a named one never is. Same columns, same key (now
-- a UNIQUE constraint), same indexes and trigger. A row's results go with it (trigger below),
-- so a row id reused after the newest row is deleted never finds results of the old one.
-- Runs inside the migrator's BEGIN IMMEDIATE, like every migration.
CREATE TABLE executions_by_row (
  row_id           INTEGER PRIMARY KEY,
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
  expires_at       INTEGER,
  header           TEXT    NOT NULL,
  header_bytes     INTEGER NOT NULL,
  summary          TEXT    NOT NULL,
  state_bytes      INTEGER NOT NULL,
  next_seq         INTEGER NOT NULL DEFAULT 0,
  lease_owner      TEXT,
  lease_generation INTEGER NOT NULL DEFAULT 0,
  lease_expires_at INTEGER,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  UNIQUE (tenant_id, execution_id)
);
-- Oldest first, so rows written before keep their creation order in the new row ids.
INSERT INTO executions_by_row (tenant_id, execution_id, flow_id, flow_version, flow_hash, status,
  version, created_at, updated_at, ended_at, expires_at, header, header_bytes, summary,
  state_bytes, next_seq, lease_owner, lease_generation, lease_expires_at, cancel_requested)
  SELECT tenant_id, execution_id, flow_id, flow_version, flow_hash, status,
    version, created_at, updated_at, ended_at, expires_at, header, header_bytes, summary,
    state_bytes, next_seq, lease_owner, lease_generation, lease_expires_at, cancel_requested
  FROM executions ORDER BY created_at, rowid;

CREATE TABLE node_results_by_row (
  execution_row INTEGER NOT NULL,
  node_id       TEXT    NOT NULL,
  seq           INTEGER NOT NULL,
  value         TEXT    NOT NULL,
  bytes         INTEGER NOT NULL,
  PRIMARY KEY (execution_row, node_id)
) WITHOUT ROWID;
-- Results whose execution row is gone were never read: they are not copied (dropped).
INSERT INTO node_results_by_row (execution_row, node_id, seq, value, bytes)
  SELECT e.row_id, n.node_id, n.seq, n.value, n.bytes
  FROM node_results n JOIN executions_by_row e
    ON e.tenant_id = n.tenant_id AND e.execution_id = n.execution_id;

DROP TABLE node_results;
DROP TABLE executions;
ALTER TABLE executions_by_row RENAME TO executions;
ALTER TABLE node_results_by_row RENAME TO node_results;

CREATE INDEX executions_by_created ON executions (tenant_id, created_at, execution_id);
CREATE INDEX executions_by_status ON executions (tenant_id, status, created_at, execution_id);
CREATE INDEX executions_by_flow ON executions (tenant_id, flow_id, created_at, execution_id);
CREATE INDEX executions_by_hash ON executions (tenant_id, flow_hash, created_at, execution_id);
CREATE INDEX executions_by_expiry ON executions (expires_at) WHERE expires_at IS NOT NULL;

-- As in 0006: a cancel request is spent once the execution is terminal.
CREATE TRIGGER cancel_spent_on_terminal
  AFTER UPDATE ON executions
  FOR EACH ROW
  WHEN NEW.cancel_requested = 1 AND NEW.status IN ('completed', 'error', 'cancelled')
BEGIN
  UPDATE executions SET cancel_requested = 0 WHERE row_id = NEW.row_id;
END;

-- Whatever deletes an execution row (a delete, the expiry sweep) deletes its results with it.
CREATE TRIGGER results_go_with_execution
  AFTER DELETE ON executions
  FOR EACH ROW
BEGIN
  DELETE FROM node_results WHERE execution_row = OLD.row_id;
END;
