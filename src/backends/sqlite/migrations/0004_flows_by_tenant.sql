-- Flow definitions belong to a tenant (docs/durable-contract.md §3): the same flow_id + version, even the same
-- content, exists independently in each tenant that publishes it. The table is rebuilt (SQLite
-- cannot change a UNIQUE constraint in place) with the rows published before tenants kept
-- under tenant 'default', their seq (publication order) unchanged. Runs inside the migrator's
-- BEGIN IMMEDIATE, like every migration: a second process starting at once waits, then finds
-- user_version current and applies nothing.
CREATE TABLE flows_by_tenant (
  seq        INTEGER PRIMARY KEY,
  tenant_id  TEXT    NOT NULL,
  flow_hash  TEXT    NOT NULL,
  flow_id    TEXT,
  version    TEXT,
  document   TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (tenant_id, flow_hash)
);
INSERT INTO flows_by_tenant (seq, tenant_id, flow_hash, flow_id, version, document, created_at)
  SELECT seq, 'default', flow_hash, flow_id, version, document, created_at FROM flows;
DROP TABLE flows;
ALTER TABLE flows_by_tenant RENAME TO flows;
CREATE UNIQUE INDEX flows_by_version ON flows (tenant_id, flow_id, version) WHERE flow_id IS NOT NULL AND version IS NOT NULL;
CREATE INDEX flows_by_flow ON flows (tenant_id, flow_id, seq) WHERE flow_id IS NOT NULL;
