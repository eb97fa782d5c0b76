-- Flow definitions (docs/durable-contract.md §3): immutable once written, by content hash and by
-- flow_id + version. `seq` orders publications: the latest version has the largest.
CREATE TABLE flows (
  flow_hash  text COLLATE "C" PRIMARY KEY,
  flow_id    text COLLATE "C",
  version    text COLLATE "C",
  document   json NOT NULL,
  created_at bigint NOT NULL,
  seq        bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX flows_by_version ON flows (flow_id, version) WHERE flow_id IS NOT NULL AND version IS NOT NULL;
CREATE INDEX flows_by_flow ON flows (flow_id, seq) WHERE flow_id IS NOT NULL;
