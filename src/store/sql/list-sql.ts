import type { ListPlan } from '../shared/list-plan.js';

/** The differences between the SQL dialects that the list query cares about. */
export interface ListDialect {
  /** The n-th bind parameter (1-based): `$1` or `?`. */
  param(n: number): string;
  /** How the summary column is selected as text (`summary::text` where it is json). */
  summary: string;
}

export interface SqlStatement {
  text: string;
  values: unknown[];
}

/**
 * The list query: newest first by (created_at, execution_id), keyset paginated, fetching
 * `limit + 1` rows so the extra one says whether there is a next page.
 *
 * Each filter is an equality on the second column of an index that starts with tenant_id and
 * ends with (created_at, execution_id), so the planner walks one index range backwards and
 * stops after `limit + 1` rows. Several statuses become one such range per status, merged by a
 * UNION ALL that sorts at most `statuses × (limit + 1)` rows.
 */
export function listSql(
  plan: ListPlan,
  table: string,
  nowMs: number,
  dialect: ListDialect,
): SqlStatement {
  const values: unknown[] = [];
  const bind = (value: unknown): string => {
    values.push(value);
    return dialect.param(values.length);
  };
  const order = 'ORDER BY created_at DESC, execution_id DESC';
  const limit = plan.limit + 1;
  const branch = (status: string | null): string =>
    `SELECT created_at, execution_id, ${dialect.summary} AS summary FROM ${table} WHERE ${conditions(plan, status, nowMs, bind).join(' AND ')} ${order} LIMIT ${bind(limit)}`;
  const statuses = plan.statuses ?? [null];
  if (statuses.length === 1) return { text: branch(statuses[0] ?? null), values };
  const union = statuses
    .map((status, i) => `SELECT * FROM (${branch(status)}) AS b${i}`)
    .join(' UNION ALL ');
  return { text: `${union} ${order} LIMIT ${bind(limit)}`, values };
}

function conditions(
  plan: ListPlan,
  status: string | null,
  nowMs: number,
  bind: (value: unknown) => string,
): string[] {
  const where = [`tenant_id = ${bind(plan.tenantId)}`];
  if (status !== null) where.push(`status = ${bind(status)}`);
  if (plan.flowId !== null) where.push(`flow_id = ${bind(plan.flowId)}`);
  if (plan.flowHash !== null) where.push(`flow_hash = ${bind(plan.flowHash)}`);
  if (plan.createdAfter !== null) where.push(`created_at > ${bind(plan.createdAfter)}`);
  if (plan.createdBefore !== null) where.push(`created_at < ${bind(plan.createdBefore)}`);
  if (plan.cursor !== null) {
    // Written so both planners use `created_at <= c` as the index bound; the second part only
    // filters the rows that share the cursor's createdAt.
    // (Bound twice rather than reused: SQLite's `?` takes one value per occurrence.)
    where.push(`created_at <= ${bind(plan.cursor.createdAt)}`);
    where.push(
      `(created_at < ${bind(plan.cursor.createdAt)} OR execution_id < ${bind(plan.cursor.executionId)})`,
    );
  }
  // Expired-but-not-swept executions are gone for `load`, so they are gone for `list` too.
  where.push(`(expires_at IS NULL OR expires_at > ${bind(nowMs)})`);
  return where;
}

/**
 * Each tenant with a row in `table` once, by one seek of the (tenant_id, …) key index per tenant
 * rather than a scan of every row: what `ExecutionStore.tenants()` reads, in both dialects.
 */
export function selectTenants(table: string): string {
  return `
WITH RECURSIVE tenant(id) AS (
  SELECT (SELECT MIN(tenant_id) FROM ${table})
  UNION ALL
  SELECT (SELECT MIN(tenant_id) FROM ${table} WHERE tenant_id > tenant.id) FROM tenant
  WHERE tenant.id IS NOT NULL
)
SELECT id FROM tenant WHERE id IS NOT NULL`;
}
