-- The control plane's records (src/store/control-store.ts): one JSON document per
-- (collection, tenant_id, id), with a version for compare-and-set and an optional expiry.
-- Runs in the migrator's transaction under its advisory lock, like every migration: a second
-- process starting at once waits, then finds the version recorded and applies nothing.
--
-- Keys use COLLATE "C": byte order of the UTF-8 text, i.e. code-point order, the order SQLite
-- (BINARY) and Redis (ZRANGEBYLEX) list ids in too, whatever the database's default collation;
-- the primary key's index serves every lookup and the keyset list of one (collection,
-- tenant_id) in both directions. `doc` is the JSON text as written (`text`, not `jsonb`: it
-- comes back byte for byte and costs no parse). Times are epoch milliseconds of the writing
-- process's clock; expired rows are invisible to every query until the sweep deletes them.
CREATE TABLE control_records (
  collection text COLLATE "C" NOT NULL,
  tenant_id  text COLLATE "C" NOT NULL,
  id         text COLLATE "C" NOT NULL,
  version    bigint NOT NULL,
  doc        text NOT NULL,
  expires_at bigint,
  PRIMARY KEY (collection, tenant_id, id)
);
-- Only records with a TTL have an expiry: the sweep reads this small index.
CREATE INDEX control_records_by_expiry ON control_records (expires_at) WHERE expires_at IS NOT NULL;
