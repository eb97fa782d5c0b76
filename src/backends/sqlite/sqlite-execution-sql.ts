import { type ListDialect, selectTenants } from '../../store/sql/list-sql.js';

/**
 * The statements of SqliteExecutionStore. Named parameters (`@name`); `@now` is the store's
 * clock (Date.now() by default). "Live" means not past its terminal expiry: an expired row
 * is absent for every read, lease and fenced write, and a save replaces it.
 */
const KEY = 'tenant_id = @tenantId AND execution_id = @executionId';
const LIVE = '(expires_at IS NULL OR expires_at > @now)';
/** In an upsert's DO UPDATE: the existing row had expired (the generation keeps counting). */
const EXPIRED = '(executions.expires_at IS NOT NULL AND executions.expires_at <= @now)';

/**
 * What a save writes besides the header, which picks its UPDATE: a full rewrite, or an
 * incremental save replacing no stored entry, exactly one (`@changedKey`), up to
 * {@link FEW_KEYS} (the usual checkpoint: a node's result, its timing and the next node's
 * timing, as `@changed0`… with NULL for the unused ones) or more (`@changedKeys`, a JSON array;
 * json_each costs more than a lookup per key).
 */
export type SaveShape = 'full' | 'none' | 'one' | 'few' | 'many';

export const FEW_KEYS = 4;
const FEW_PARAMS = Array.from({ length: FEW_KEYS }, (_, i) => `@changed${i}`).join(', ');

/**
 * The new size total: a full rewrite's is what it writes; an incremental save moves the stored
 * one by the header's change and the changed nodes' (their stored size is what they replace).
 */
const NEW_TOTAL: Record<SaveShape, string> = {
  full: '@headerBytes + @writtenBytes',
  none: 'state_bytes - header_bytes + @headerBytes',
  one: `state_bytes - header_bytes + @headerBytes + @writtenBytes - coalesce((
      SELECT bytes FROM node_results n
      WHERE n.execution_row = executions.row_id AND n.node_id = @changedKey), 0)`,
  few: `state_bytes - header_bytes + @headerBytes + @writtenBytes - coalesce((
      SELECT sum(bytes) FROM node_results n
      WHERE n.execution_row = executions.row_id AND n.node_id IN (${FEW_PARAMS})), 0)`,
  many: `state_bytes - header_bytes + @headerBytes + @writtenBytes - coalesce((
      SELECT sum(bytes) FROM node_results n
      WHERE n.execution_row = executions.row_id AND n.node_id IN (SELECT value FROM json_each(@changedKeys))), 0)`,
};

/**
 * The save's conditional UPDATE: header columns, the running size total, the node sequence,
 * and — for a fenced save — the generation check, all in the WHERE clause together with the
 * size limit, so that `changes = 1` says "saved" and no RETURNING is needed (SQLite buffers
 * RETURNING rows in a scratch table: a third of the statement's cost). No change means absent,
 * expired, fenced out or over the limit; the store then asks which.
 *
 * SQLite rewrites the entries of every index whose columns an UPDATE assigns, changed or not,
 * so the save tries the forms that assign fewer of them first, each matching only when the
 * columns it leaves out stay as they are: `checkpoint` (the usual save: the row's own page and
 * its node's), then `status` (a status change: one index more), then `all`.
 */
function updateExecution(assigns: Assigned, shape: SaveShape): string {
  const total = NEW_TOTAL[shape];
  const set = ASSIGNED[assigns]
    .map((column) => `${column} = ${INDEXED_COLUMNS[column]}, `)
    .join('');
  const kept = (Object.keys(INDEXED_COLUMNS) as IndexedColumn[])
    .filter((column) => !ASSIGNED[assigns].includes(column))
    .map((column) => ` AND ${column} IS ${INDEXED_COLUMNS[column]}`)
    .join('');
  return `
UPDATE executions SET ${set}
  flow_version = @flowVersion, version = @version, updated_at = @updatedAt, ended_at = @endedAt,
  expires_at = @expiresAt, header = @header, header_bytes = @headerBytes, summary = @summary,
  state_bytes = ${total},
  next_seq = ${shape === 'full' ? '@nodeCount' : 'next_seq + @nodeCount'}
WHERE ${KEY} AND ${LIVE} AND (@fence IS NULL OR lease_generation = @fence)${kept}
  AND ${total} <= @maxStateBytes`;
}

/** The columns of the list indexes a save may change (expires_at's index is partial: NULL costs nothing). */
const INDEXED_COLUMNS = {
  status: '@status',
  flow_id: '@flowId',
  flow_hash: '@flowHash',
  created_at: '@createdAt',
} as const;
type IndexedColumn = keyof typeof INDEXED_COLUMNS;

type Assigned = 'checkpoint' | 'status' | 'all';
const ASSIGNED: Record<Assigned, readonly IndexedColumn[]> = {
  checkpoint: [],
  status: ['status'],
  all: ['status', 'flow_id', 'flow_hash', 'created_at'],
};

const SHAPES: readonly SaveShape[] = ['full', 'none', 'one', 'few', 'many'];

/** The save's UPDATEs, in the order to try them, each per shape. */
export const UPDATES: readonly Record<SaveShape, string>[] = (
  ['checkpoint', 'status', 'all'] as const
).map(
  (assigns) =>
    Object.fromEntries(SHAPES.map((shape) => [shape, updateExecution(assigns, shape)])) as Record<
      SaveShape,
      string
    >,
);

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
/** The execution's row id: node results are keyed by it (migration 0007). */
const ROW = `(SELECT row_id FROM executions WHERE ${KEY})`;
export const SELECT_NODE_SIZES = `SELECT node_id AS nodeKey, bytes FROM node_results WHERE execution_row = ${ROW}`;
export const DELETE_NODES = `DELETE FROM node_results WHERE execution_row = ${ROW}`;
export const DELETE_NODE = `${DELETE_NODES} AND node_id = @nodeKey`;
/**
 * One node result of a save, after the row's UPDATE or INSERT moved `next_seq` past the
 * `@nodeCount` nodes it writes: the `@index`-th takes its seq from there (a result already
 * stored keeps the seq of its first recording).
 */
export const UPSERT_NODE = `
INSERT INTO node_results (execution_row, node_id, seq, value, bytes)
SELECT row_id, @nodeKey, next_seq - @nodeCount + @index, @value, @bytes FROM executions WHERE ${KEY}
ON CONFLICT (execution_row, node_id) DO UPDATE SET value = excluded.value, bytes = excluded.bytes`;

/**
 * A load in ONE statement, so one implicit read transaction is the snapshot (no BEGIN/COMMIT
 * round of its own): the header first (`nodeKey` NULL) when the execution is live, then its
 * results in seq order. Results without a live header (expired) are ignored by the caller.
 */
export const SELECT_STATE = `
SELECT NULL AS nodeKey, header AS value, -1 AS seq FROM executions WHERE ${KEY} AND ${LIVE}
UNION ALL
SELECT node_id, value, seq FROM node_results WHERE execution_row = ${ROW}
ORDER BY seq`;
export const DELETE_EXECUTION = `DELETE FROM executions WHERE ${KEY} RETURNING ${LIVE} AS live`;

export const SELECT_TENANTS = selectTenants('executions');

export const SELECT_EXPIRED =
  'SELECT tenant_id AS tenantId, execution_id AS executionId FROM executions WHERE expires_at <= @now LIMIT @limit';
export const DELETE_ROW = `DELETE FROM executions WHERE ${KEY}`;

/** Taken when free, expired, or already this owner's; the generation always goes up, to at least `@floor` (generation-floor.ts). */
export const ACQUIRE_LEASE = `
UPDATE executions SET lease_owner = @owner, lease_generation = MAX(lease_generation + 1, @floor), lease_expires_at = @expiresAt
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
