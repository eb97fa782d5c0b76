import type { ListDialect } from '../sql/list-sql.js';

/**
 * The statements of PostgresExecutionStore for one schema (`s` is the quoted schema name).
 * `$1, $2` are always tenant_id, execution_id; "now" is Date.now() of this process. "Live"
 * means not past its terminal expiry: an expired row is absent for every read, lease and
 * fenced write, and a save replaces it.
 */
export function executionSql(s: string) {
  const E = `${s}.executions`;
  const N = `${s}.node_results`;
  const KEY = 'tenant_id = $1 AND execution_id = $2';
  const live = (p: string): string => `(expires_at IS NULL OR expires_at > ${p}::bigint)`;
  const expired = (p: string): string =>
    `(${E}.expires_at IS NOT NULL AND ${E}.expires_at <= ${p}::bigint)`;
  const ROW =
    'flow_id, flow_version, flow_hash, status, version, created_at, updated_at, ended_at, expires_at, header, header_bytes, summary';
  return {
    /**
     * The save's one conditional UPDATE: the header columns, the header's share of the size
     * total, the node sequence and — when $17 (the fence) is not null — the generation check,
     * atomically. No row back means absent, expired or fenced out. It takes the row lock first,
     * so the node statement that follows reads the node sizes of the latest committed save.
     */
    updateExecution: `
UPDATE ${E} SET (${ROW}) = ($3, $4, $5, $6, $7, $8, $9, $10, $11, $12::json, $13::integer, $14::json),
  state_bytes = CASE WHEN $15::boolean THEN $13::integer + $16::bigint ELSE state_bytes - header_bytes + $13::integer END,
  next_seq = CASE WHEN $15::boolean THEN $18::integer ELSE next_seq + $18::integer END
WHERE ${KEY} AND ${live('$19')} AND ($17::bigint IS NULL OR lease_generation = $17)
RETURNING state_bytes, next_seq - $18::integer AS first_seq`,
    /** A new execution, or one replacing an expired row (whose lease and cancel request go). */
    insertExecution: `
INSERT INTO ${E} (tenant_id, execution_id, ${ROW}, state_bytes, next_seq)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::json, $13::integer, $14::json, $13::integer + $15::bigint, $16)
ON CONFLICT (tenant_id, execution_id) DO UPDATE SET (${ROW}, state_bytes, next_seq) =
  (excluded.flow_id, excluded.flow_version, excluded.flow_hash, excluded.status, excluded.version,
   excluded.created_at, excluded.updated_at, excluded.ended_at, excluded.expires_at, excluded.header,
   excluded.header_bytes, excluded.summary, excluded.state_bytes, excluded.next_seq),
  lease_owner = CASE WHEN ${expired('$17')} THEN NULL ELSE ${E}.lease_owner END,
  lease_expires_at = CASE WHEN ${expired('$17')} THEN NULL ELSE ${E}.lease_expires_at END,
  cancel_requested = ${E}.cancel_requested AND NOT ${expired('$17')}`,
    selectGeneration: `SELECT lease_generation AS generation FROM ${E} WHERE ${KEY} AND ${live('$3')}`,
    selectNodeSizes: `SELECT node_id AS node_key, bytes FROM ${N} WHERE ${KEY}`,
    /**
     * A full rewrite's nodes, one statement: the stored results not in $3 go, the rest are
     * upserted with their new order (`count` rows of node_id, seq, value, bytes from $4 on).
     */
    replaceNodes: (count: number): string => `
WITH gone AS (DELETE FROM ${N} WHERE ${KEY} AND NOT (node_id = ANY($3::text[])))${
      count > 0
        ? `,
  put AS (${upsertNodes(N, count, 4)} , seq = excluded.seq)`
        : ''
    }
SELECT NULL::bigint AS state_bytes`,
    /** More rows of a full rewrite too large for one statement (same parameters from $3 on). */
    upsertNodes: (count: number): string => `${upsertNodes(N, count, 3)}, seq = excluded.seq`,
    /**
     * An incremental save's nodes, one statement: upsert the changed results (their order is
     * kept), delete the removed ones ($4), and move the size total by what they added ($5) minus
     * what the replaced ones weighed ($3: every changed id), read after the row lock. Returns
     * the new total, checked against the limit before COMMIT.
     */
    changeNodes: (count: number): string => `
WITH old AS (SELECT coalesce(sum(bytes), 0) AS bytes FROM ${N} WHERE ${KEY} AND node_id = ANY($3::text[])),
  gone AS (DELETE FROM ${N} WHERE ${KEY} AND node_id = ANY($4::text[])),${
    count > 0
      ? `
  put AS (${upsertNodes(N, count, 6)}),`
      : ''
  }
  total AS (UPDATE ${E} SET state_bytes = state_bytes + $5::bigint - (SELECT bytes FROM old) WHERE ${KEY} RETURNING state_bytes)
SELECT state_bytes FROM total`,
    /** Header and nodes in ONE statement: one snapshot, never a header from one save and nodes from another. */
    load: `
SELECT 0 AS part, 0 AS seq, NULL AS node_key, header::text AS text FROM ${E} WHERE ${KEY} AND ${live('$3')}
UNION ALL
SELECT 1, n.seq, n.node_id, n.value::text FROM ${N} n WHERE n.tenant_id = $1 AND n.execution_id = $2
ORDER BY part, seq`,
    delete: `
WITH gone AS (DELETE FROM ${E} WHERE ${KEY} RETURNING ${live('$3')} AS live),
  nodes AS (DELETE FROM ${N} WHERE ${KEY})
SELECT live FROM gone`,
    /** One batch; SKIP LOCKED lets two sweepers (or a save) proceed without waiting. */
    sweep: `
WITH doomed AS (SELECT tenant_id, execution_id FROM ${E} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED),
  gone AS (DELETE FROM ${E} e USING doomed d WHERE e.tenant_id = d.tenant_id AND e.execution_id = d.execution_id RETURNING e.tenant_id, e.execution_id),
  nodes AS (DELETE FROM ${N} n USING gone g WHERE n.tenant_id = g.tenant_id AND n.execution_id = g.execution_id)
SELECT count(*)::int AS swept FROM gone`,
    /** Taken when free, expired, or already this owner's; the generation always goes up. */
    acquireLease: `
UPDATE ${E} SET lease_owner = $3, lease_generation = lease_generation + 1, lease_expires_at = $5::bigint
WHERE ${KEY} AND ${live('$4')} AND (lease_owner IS NULL OR lease_owner = $3 OR lease_expires_at <= $4)
RETURNING lease_generation AS generation, lease_expires_at AS expires_at`,
    renewLease: `
UPDATE ${E} SET lease_expires_at = $6
WHERE ${KEY} AND ${live('$5')} AND lease_owner = $3 AND lease_generation = $4 AND lease_expires_at > $5`,
    releaseLease: `UPDATE ${E} SET lease_owner = NULL, lease_expires_at = NULL WHERE ${KEY} AND lease_owner = $3 AND lease_generation = $4`,
    selectLease: `
SELECT lease_owner AS owner, lease_generation AS generation, lease_expires_at AS expires_at FROM ${E}
WHERE ${KEY} AND ${live('$3')} AND lease_owner IS NOT NULL AND lease_expires_at > $3`,
    requestCancel: `UPDATE ${E} SET cancel_requested = true WHERE ${KEY} AND ${live('$3')}`,
    selectCancel: `SELECT cancel_requested AS requested FROM ${E} WHERE ${KEY} AND ${live('$3')}`,
  };
}

export type ExecutionSql = ReturnType<typeof executionSql>;

/** INSERT … ON CONFLICT of `count` node rows whose (node_id, seq, value, bytes) start at $first. */
function upsertNodes(table: string, count: number, first: number): string {
  const rows = Array.from({ length: count }, (_, i) => {
    const p = first + 4 * i;
    return `($1, $2, $${p}, $${p + 1}::integer, $${p + 2}::json, $${p + 3}::integer)`;
  });
  return `INSERT INTO ${table} (tenant_id, execution_id, node_id, seq, value, bytes) VALUES ${rows.join(', ')}
  ON CONFLICT (tenant_id, execution_id, node_id) DO UPDATE SET value = excluded.value, bytes = excluded.bytes`;
}

/** How the shared list query is written for PostgreSQL. */
export const POSTGRES_LIST_DIALECT: ListDialect = {
  param: (n) => `$${n}`,
  summary: 'summary::text',
};
