-- Flow definitions belong to a tenant (docs/durable-contract.md §3): the same flow_id + version, even the same
-- content, exists independently in each tenant that publishes it. Rows published before tenants
-- stay under tenant 'default' (ADD COLUMN with a constant default rewrites nothing; the default
-- is dropped after, so every later insert names its tenant). Runs in the migrator's transaction
-- under its advisory lock, like every migration: a second process starting at once waits, then
-- finds the version recorded and applies nothing.
ALTER TABLE flows ADD COLUMN tenant_id text COLLATE "C" NOT NULL DEFAULT 'default';
ALTER TABLE flows ALTER COLUMN tenant_id DROP DEFAULT;
ALTER TABLE flows DROP CONSTRAINT flows_pkey, ADD PRIMARY KEY (tenant_id, flow_hash);
DROP INDEX flows_by_version;
DROP INDEX flows_by_flow;
CREATE UNIQUE INDEX flows_by_version ON flows (tenant_id, flow_id, version) WHERE flow_id IS NOT NULL AND version IS NOT NULL;
CREATE INDEX flows_by_flow ON flows (tenant_id, flow_id, seq) WHERE flow_id IS NOT NULL;
