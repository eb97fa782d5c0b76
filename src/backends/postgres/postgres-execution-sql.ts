import { type ListDialect, selectTenants } from '../../store/sql/list-sql.js';

/**
 * The next fencing generation (acquireLease; migration 0008 for the claim): one up, and at least
 * the server's clock in µs (store/shared/generation-floor.ts says why).
 */
const NEXT_GENERATION = (column: string): string =>
  `GREATEST(${column} + 1, (extract(epoch from clock_timestamp()) * 1000000)::bigint)`;

/**
 * The statements of PostgresExecutionStore for one schema (`s` is the quoted schema name).
 * `$1, $2` are always tenant_id, execution_id; "now" is the store's clock (Date.now() by
 * default). "Live" means not past its terminal expiry: an expired row is absent for every
 * read, lease and fenced write, and a save replaces it.
 */
export function executionSql(s: string) {
  const E = `${s}.executions`;
  const N = `${s}.node_results`;
  const KEY = 'tenant_id = $1 AND execution_id = $2';
  const live = (p: string): string => `(expires_at IS NULL OR expires_at > ${p}::bigint)`;
  // Built once per node count: the text is the prepared statement's key on every call.
  const saves: string[] = [];
  const saveSql = (count: number): string =>
    `
SELECT outcome, generation, node_keys, node_bytes FROM ${s}.save_execution(
  $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bigint, $8::bigint, $9::bigint,
  $10::bigint, $11::bigint, $12::json, $13::integer, $14::json, $15::boolean, $16::bigint,
  $17::bigint, $18::bigint, $19::text[], $20::text[], ${nodeValues(count)}, $21::integer[],
  $22::bigint, $23::boolean)`;
  return {
    /**
     * A whole save in one call of `save_execution` (migration 0003: why, and its outcomes), so
     * one round trip in an implicit transaction. `count` node values travel as separate
     * parameters ($24…), up to {@link MAX_INLINE_VALUES}; beyond that as one text array ($24).
     */
    save: (count: number): string =>
      (saves[Math.min(count, MAX_INLINE_VALUES + 1)] ??= saveSql(count)),
    /**
     * Many saves as ONE statement (group commit): one round trip, one implicit transaction,
     * one commit. Each parameter holds one entry per save, zipped by `unnest`; a save's node
     * keys, values and sizes travel as one JSON array text each. `save_execution` runs with
     * p_wait false: a row locked for over 10 ms fails the statement, and the caller then sends
     * each save alone.
     */
    saveBatch: `
SELECT b.ord, r.outcome, r.generation, r.node_keys, r.node_bytes
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
  $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[],
  $13::integer[], $14::text[], $15::boolean[], $16::bigint[], $17::bigint[], $19::text[],
  $20::text[], $21::text[], $22::text[], $23::bigint[])
  WITH ORDINALITY AS b(tenant, id, flow_id, flow_version, flow_hash, status, version,
    created_at, updated_at, ended_at, expires_at, header, header_bytes, summary, full_rewrite,
    fence, now, removed, keys, vals, bytes, written, ord)
CROSS JOIN LATERAL ${s}.save_execution(b.tenant, b.id, b.flow_id, b.flow_version, b.flow_hash,
  b.status, b.version, b.created_at, b.updated_at, b.ended_at, b.expires_at, b.header::json,
  b.header_bytes, b.summary::json, b.full_rewrite, b.fence, b.now, $18::bigint,
  ARRAY(SELECT e.v FROM json_array_elements_text(b.removed::json) WITH ORDINALITY e(v, i) ORDER BY e.i),
  ARRAY(SELECT e.v FROM json_array_elements_text(b.keys::json) WITH ORDINALITY e(v, i) ORDER BY e.i),
  ARRAY(SELECT e.v FROM json_array_elements(b.vals::json) WITH ORDINALITY e(v, i) ORDER BY e.i),
  ARRAY(SELECT e.v::integer FROM json_array_elements_text(b.bytes::json) WITH ORDINALITY e(v, i) ORDER BY e.i),
  b.written, false) r
ORDER BY b.ord`,
    /** Header and nodes in ONE statement: one snapshot, never a header from one save and nodes from another. */
    load: `
SELECT 0 AS part, 0 AS seq, NULL AS node_key, header::text AS text FROM ${E} WHERE ${KEY} AND ${live('$3')}
UNION ALL
SELECT 1, n.seq, n.node_id, n.value::text FROM ${N} n WHERE n.tenant_id = $1 AND n.execution_id = $2
ORDER BY part, seq`,
    /**
     * The row first, then its results by a second statement of the same transaction: one
     * statement's snapshot would miss results a save committed while the row delete waited on
     * its lock, leaving them orphaned (store.delete runs both in one transaction).
     */
    deleteRow: `DELETE FROM ${E} WHERE ${KEY} RETURNING ${live('$3')} AS live`,
    deleteNodes: `DELETE FROM ${N} WHERE ${KEY}`,
    /** Lease, header, results and cancel mark in one call (migration 0006: why, and its rows). */
    claim: `SELECT o_part, o_seq, o_key, o_text, o_generation, o_cancel FROM ${s}.claim_execution($1, $2, $3, $4::bigint, $5::bigint)`,
    /** One batch; SKIP LOCKED lets two sweepers (or a save) proceed without waiting. */
    sweep: `
WITH doomed AS (SELECT tenant_id, execution_id FROM ${E} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED),
  gone AS (DELETE FROM ${E} e USING doomed d WHERE e.tenant_id = d.tenant_id AND e.execution_id = d.execution_id RETURNING e.tenant_id, e.execution_id),
  nodes AS (DELETE FROM ${N} n USING gone g WHERE n.tenant_id = g.tenant_id AND n.execution_id = g.execution_id)
SELECT count(*)::int AS swept FROM gone`,
    /** Taken when free, expired, or already this owner's; the generation always goes up (NEXT_GENERATION). */
    acquireLease: `
UPDATE ${E} SET lease_owner = $3, lease_generation = ${NEXT_GENERATION('lease_generation')}, lease_expires_at = $5::bigint
WHERE ${KEY} AND ${live('$4')} AND (lease_owner IS NULL OR lease_owner = $3 OR lease_expires_at <= $4)
RETURNING lease_generation AS generation, lease_expires_at AS expires_at`,
    renewLease: `
UPDATE ${E} SET lease_expires_at = $6
WHERE ${KEY} AND ${live('$5')} AND lease_owner = $3 AND lease_generation = $4 AND lease_expires_at > $5`,
    releaseLease: `UPDATE ${E} SET lease_owner = NULL, lease_expires_at = NULL WHERE ${KEY} AND lease_owner = $3 AND lease_generation = $4`,
    /** The releases of one turn as one statement (group commit): each row as releaseLease. */
    releaseLeases: `
UPDATE ${E} e SET lease_owner = NULL, lease_expires_at = NULL
FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS r(tenant, id, owner, generation)
WHERE e.tenant_id = r.tenant AND e.execution_id = r.id AND e.lease_owner = r.owner
  AND e.lease_generation = r.generation`,
    selectLease: `
SELECT lease_owner AS owner, lease_generation AS generation, lease_expires_at AS expires_at FROM ${E}
WHERE ${KEY} AND ${live('$3')} AND lease_owner IS NOT NULL AND lease_expires_at > $3`,
    requestCancel: `UPDATE ${E} SET cancel_requested = true WHERE ${KEY} AND ${live('$3')}`,
    selectCancel: `SELECT cancel_requested AS requested FROM ${E} WHERE ${KEY} AND ${live('$3')}`,
    selectTenants: selectTenants(E),
    /** Held to the end of the transaction: create-only saves of one id queue here. */
    lockCreate: `SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))`,
    selectLive: `SELECT 1 AS live FROM ${E} WHERE ${KEY} AND ${live('$3')}`,
  };
}

export type ExecutionSql = ReturnType<typeof executionSql>;

/** Past this many node values a save sends them as one array literal, not one parameter each. */
export const MAX_INLINE_VALUES = 64;

/**
 * The node values argument: `ARRAY[$24, $25, …]` keeps each value its own parameter (no array
 * escaping of the JSON text, on either side); a huge full rewrite sends one `text[]` instead,
 * so the statement never nears PostgreSQL's 65,535 parameters.
 */
function nodeValues(count: number): string {
  if (count > MAX_INLINE_VALUES) return '$24::json[]';
  const values = Array.from({ length: count }, (_, i) => `$${24 + i}::json`);
  return `ARRAY[${values.join(', ')}]::json[]`;
}

/** How the shared list query is written for PostgreSQL. */
export const POSTGRES_LIST_DIALECT: ListDialect = {
  param: (n) => `$${n}`,
  summary: 'summary::text',
};
