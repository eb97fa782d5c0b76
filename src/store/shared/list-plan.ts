import { InvalidCursorError } from '../../errors/store-errors.js';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../../state/execution-state.js';
import {
  DEFAULT_TENANT,
  type ExecutionSummary,
  type ListPage,
  type ListQuery,
} from '../execution-store.js';
import { isStorableText } from './stored-text.js';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 1000;

/** Where the previous page stopped: the last item's sort key. */
export interface ListCursor {
  createdAt: number;
  executionId: string;
}

/** A validated {@link ListQuery}, in the terms every store filters by. */
export interface ListPlan {
  tenantId: string;
  /** null: any status; empty: no execution can match. */
  statuses: ExecutionStatus[] | null;
  flowId: string | null;
  flowHash: string | null;
  /** Exclusive bounds on `createdAt`, epoch ms. */
  createdAfter: number | null;
  createdBefore: number | null;
  limit: number;
  cursor: ListCursor | null;
  /** True when a filter holds text no stored execution can have: the page is empty. */
  matchesNothing: boolean;
}

/** Validates the query; a malformed bound, limit or cursor is a programming error (RangeError). */
export function planList(query: ListQuery = {}): ListPlan {
  const statuses =
    query.status === undefined
      ? null
      : [...new Set(typeof query.status === 'string' ? [query.status] : query.status)];
  for (const status of statuses ?? []) {
    if (!EXECUTION_STATUSES.includes(status))
      throw new RangeError(`unknown status ${JSON.stringify(status)}`);
  }
  const plan: ListPlan = {
    tenantId: query.tenantId ?? DEFAULT_TENANT,
    statuses,
    flowId: query.flowId ?? null,
    flowHash: query.flowHash ?? null,
    createdAfter: isoBound('createdAfter', query.createdAfter),
    createdBefore: isoBound('createdBefore', query.createdBefore),
    limit: listLimit(query.limit),
    cursor: query.cursor ? decodeCursor(query.cursor) : null,
    matchesNothing: false,
  };
  const texts = [plan.tenantId, plan.flowId, plan.flowHash].filter((t): t is string => t !== null);
  plan.matchesNothing = statuses?.length === 0 || texts.some((t) => !isStorableText(t));
  return plan;
}

function listLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a positive integer, got ${String(limit)}`);
  // Documented as "at most 1000": larger requests get full pages of 1000 and a cursor.
  return Math.min(limit, MAX_LIST_LIMIT);
}

function isoBound(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new RangeError(`${name} must be an ISO-8601 time, got ${JSON.stringify(value)}`);
  return ms;
}

/** Opaque to callers: base64url of `[createdAtMs, executionId]`. */
export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.executionId]), 'utf8').toString(
    'base64url',
  );
}

export function decodeCursor(text: string): ListCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    !Number.isSafeInteger(parsed[0]) ||
    typeof parsed[1] !== 'string'
  ) {
    throw new InvalidCursorError('cursor is not one returned by list()');
  }
  return { createdAt: parsed[0] as number, executionId: parsed[1] };
}

/** A row as the list queries return it: the sort key and the encoded summary. */
export interface ListedRow {
  createdAt: number;
  executionId: string;
  summary: ExecutionSummary;
}

/** Builds the page from up to `limit + 1` rows in list order: the extra row means "more". */
export function toPage(rows: readonly ListedRow[], limit: number): ListPage {
  const items = rows.slice(0, limit);
  const last = rows.length > limit ? items.at(-1) : undefined;
  return {
    items: items.map((row) => row.summary),
    nextCursor: last
      ? encodeCursor({ createdAt: last.createdAt, executionId: last.executionId })
      : null,
  };
}
