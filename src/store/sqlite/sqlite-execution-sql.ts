import type { ListDialect } from '../sql/list-sql.js';

/**
 * The statements of SqliteExecutionStore. Named parameters (`@name`); `@now` is Date.now() of
 * this process. "Live" means not past its terminal expiry: an expired row is absent for every
 * read, lease and fenced write, and a save replaces it.
 */
const KEY = 'tenant_id = @tenantId AND execution_id = @executionId';
const LIVE = '(expires_at IS NULL OR expires_at > @now)';
/** In an upsert's DO UPDATE: the existing row had expired (the generation keeps counting). */
const EXPIRED = '(executions.expires_at IS NOT NULL AND executions.expires_at <= @now)';

/**
 * The save's one conditional UPDATE: header columns, the running size total (an incremental
 * save subtracts the stored size of the nodes it replaces), the node sequence, and — for a
 * fenced save — the generation check. No row back means absent, expired or fenced out.
 */
export const UPDATE_EXECUTION = `
UPDATE executions SET
  flow_id = @flowId, flow_version = @flowVersion, flow_hash = @flowHash, status = @status,
  version = @version, created_at = @createdAt, updated_at = @updatedAt, ended_at = @endedAt,
  expires_at = @expiresAt, header = @header, header_bytes = @headerBytes, summary = @summary,
  state_bytes = CASE WHEN @full = 1 THEN @headerBytes + @writtenBytes
    ELSE state_bytes - header_bytes + @headerBytes + @writtenBytes - coalesce((
      SELECT sum(bytes) FROM node_results n
      WHERE n.tenant_id = @tenantId AND n.execution_id = @executionId
        AND n.node_id IN (SELECT value FROM json_each(@changedKeys))), 0) END,
  next_seq = CASE WHEN @full = 1 THEN @nodeCount ELSE next_seq + @nodeCount END
WHERE ${KEY} AND ${LIVE} AND (@fence IS NULL OR lease_generation = @fence)
RETURNING state_bytes AS stateBytes, next_seq - @nodeCount AS firstSeq`;

/** A new execution, or one that replaces an expired row (whose lease and cancel request go). */
export const INSERT_EXECUTION = `
INSERT INTO executions (tenant_id, execution_id, flow_id, flow_version, flow_hash, status, version,
  created_at, updated_at, ended_at, expires_at, header, header_bytes, summary, state_bytes, next_seq)
VALUES (@tenantId, @executionId, @flowId, @flowVersion, @flowHash, @status, @version,
  @createdAt, @updatedAt, @endedAt, @expiresAt, @header, @headerBytes, @summary,
  @headerBytes + @writtenBytes, @nodeCount)
ON CONFLICT (tenant_id, execution_id) DO UPDATE SET
  flow_id = excluded.flow_id, flow_version = excluded.flow_version, flow_hash = excluded.flow_hash,
  status = excluded.status, version = excluded.version, created_at = excluded.created_at,
  updated_at = excluded.updated_at, ended_at = excluded.ended_at, expires_at = excluded.expires_at,
  header = excluded.header, header_bytes = excluded.header_bytes, summary = excluded.summary,
  state_bytes = excluded.state_bytes, next_seq = excluded.next_seq,
  lease_owner = CASE WHEN ${EXPIRED} THEN NULL ELSE lease_owner END,
  lease_expires_at = CASE WHEN ${EXPIRED} THEN NULL ELSE lease_expires_at END,
  cancel_requested = CASE WHEN ${EXPIRED} THEN 0 ELSE cancel_requested END`;

export const SELECT_GENERATION = `SELECT lease_generation AS generation FROM executions WHERE ${KEY} AND ${LIVE}`;
export const SELECT_NODE_SIZES =
  'SELECT node_id AS nodeKey, bytes FROM node_results WHERE tenant_id = @tenantId AND execution_id = @executionId';
export const DELETE_NODES =
  'DELETE FROM node_results WHERE tenant_id = @tenantId AND execution_id = @executionId';
export const DELETE_NODE = `${DELETE_NODES} AND node_id = @nodeKey`;
export const UPSERT_NODE = `
INSERT INTO node_results (tenant_id, execution_id, node_id, seq, value, bytes)
VALUES (@tenantId, @executionId, @nodeKey, @seq, @value, @bytes)
ON CONFLICT (tenant_id, execution_id, node_id) DO UPDATE SET value = excluded.value, bytes = excluded.bytes`;

export const SELECT_HEADER = `SELECT header FROM executions WHERE ${KEY} AND ${LIVE}`;
export const SELECT_NODES =
  'SELECT node_id AS nodeKey, value FROM node_results WHERE tenant_id = @tenantId AND execution_id = @executionId ORDER BY seq';
export const DELETE_EXECUTION = `DELETE FROM executions WHERE ${KEY} RETURNING ${LIVE} AS live`;

export const SELECT_EXPIRED =
  'SELECT tenant_id AS tenantId, execution_id AS executionId FROM executions WHERE expires_at <= @now LIMIT @limit';
export const DELETE_ROW = `DELETE FROM executions WHERE ${KEY}`;

/** Taken when free, expired, or already this owner's; the generation always goes up. */
export const ACQUIRE_LEASE = `
UPDATE executions SET lease_owner = @owner, lease_generation = lease_generation + 1, lease_expires_at = @expiresAt
WHERE ${KEY} AND ${LIVE} AND (lease_owner IS NULL OR lease_owner = @owner OR lease_expires_at <= @now)
RETURNING lease_generation AS generation, lease_expires_at AS expiresAt`;
export const RENEW_LEASE = `
UPDATE executions SET lease_expires_at = @expiresAt
WHERE ${KEY} AND ${LIVE} AND lease_owner = @owner AND lease_generation = @generation AND lease_expires_at > @now`;
export const RELEASE_LEASE = `
UPDATE executions SET lease_owner = NULL, lease_expires_at = NULL
WHERE ${KEY} AND lease_owner = @owner AND lease_generation = @generation`;
export const SELECT_LEASE = `
SELECT lease_owner AS owner, lease_generation AS generation, lease_expires_at AS expiresAt FROM executions
WHERE ${KEY} AND ${LIVE} AND lease_owner IS NOT NULL AND lease_expires_at > @now`;

export const REQUEST_CANCEL = `UPDATE executions SET cancel_requested = 1 WHERE ${KEY} AND ${LIVE}`;
export const SELECT_CANCEL = `SELECT cancel_requested AS requested FROM executions WHERE ${KEY} AND ${LIVE}`;

/** How the shared list query is written for SQLite (`?` takes one value per occurrence). */
export const SQLITE_LIST_DIALECT: ListDialect = { param: () => '?', summary: 'summary' };
