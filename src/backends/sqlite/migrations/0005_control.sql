-- The control plane's records (src/store/control-store.ts): one JSON document per
-- (collection, tenant_id, id), with a version for compare-and-set and an optional expiry.
-- `id` uses the default BINARY collation: memcmp of the UTF-8 text, i.e. code-point order, the
-- order PostgreSQL (COLLATE "C") and Redis (ZRANGEBYLEX) list ids in too. The primary key's
-- index serves every lookup and the keyset list of one (collection, tenant_id) in both
-- directions; expired rows stay invisible to every query until the sweep deletes them.
-- Times are epoch milliseconds of the writing process's clock.
CREATE TABLE control_records (
  collection TEXT    NOT NULL,
  tenant_id  TEXT    NOT NULL,
  id         TEXT    NOT NULL,
  version    INTEGER NOT NULL,
  doc        TEXT    NOT NULL,
  expires_at INTEGER,
  PRIMARY KEY (collection, tenant_id, id)
);
-- Only records with a TTL have an expiry: the sweep reads this small index.
CREATE INDEX control_records_by_expiry ON control_records (expires_at) WHERE expires_at IS NOT NULL;
