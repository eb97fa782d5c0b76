-- Flow definitions (docs/durable-contract.md §3): immutable once written, by content hash and by
-- flow_id + version. `seq` (the rowid) orders publications: the latest version is the largest.
CREATE TABLE flows (
  seq        INTEGER PRIMARY KEY,
  flow_hash  TEXT    NOT NULL UNIQUE,
  flow_id    TEXT,
  version    TEXT,
  document   TEXT    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX flows_by_version ON flows (flow_id, version) WHERE flow_id IS NOT NULL AND version IS NOT NULL;
CREATE INDEX flows_by_flow ON flows (flow_id, seq) WHERE flow_id IS NOT NULL;
