import type { ExecutionSummary } from '../../store/execution-store.js';
import { ApprovalDecisions, type ApprovalProgress } from './approval-decisions.js';
import { APPROVAL_EVENT_TYPE } from './approval-event.js';
import { findApproval } from './pending-approval.js';
import { type ApprovalDeps, deliverOutcome } from './submit-decision.js';

export interface ApprovalQuery {
  /** Only approvals this approver is on the list of. */
  approver?: string | undefined;
  limit: number;
  cursor: string | null;
}

/**
 * An empty page reads on (a few underlying pages at most) rather than answering nothing: the
 * waiting executions of a tenant are mostly other kinds of waits, or other approvers'.
 */
const MAX_SCANNED_PAGES = 5;

/**
 * The tenant's undecided approvals, newest execution first (docs/http-api.md §4). Paged over the
 * store's list of waiting executions, so the cursor is the store's and a page may be shorter
 * than `limit` (even empty, with a cursor) when the executions it read wait for something else.
 */
export async function listApprovals(
  services: ApprovalDeps,
  tenantId: string,
  query: ApprovalQuery,
): Promise<{ items: ApprovalProgress[]; nextCursor: string | null }> {
  const items: ApprovalProgress[] = [];
  let cursor = query.cursor;
  for (let scanned = 0; scanned < MAX_SCANNED_PAGES && items.length === 0; scanned++) {
    // A cursor the store did not make is its InvalidCursorError (to the API: a 400).
    const page = await services.store.list({
      tenantId,
      status: 'suspended',
      limit: query.limit,
      cursor,
    });
    const found = await Promise.all(
      page.items.map((summary) => undecidedApproval(services, summary, query.approver)),
    );
    for (const approval of found) if (approval) items.push(approval);
    cursor = page.nextCursor;
    if (cursor === null) break;
  }
  return { items, nextCursor: cursor };
}

async function undecidedApproval(
  services: ApprovalDeps,
  summary: ExecutionSummary,
  approver: string | undefined,
): Promise<ApprovalProgress | null> {
  const waiting = summary.waiting;
  if (!waiting || waiting.eventType !== APPROVAL_EVENT_TYPE) return null;
  const state = await services.store.load(summary.executionId, { tenantId: summary.tenantId });
  if (!state) return null;
  const found = await findApproval(services, state, waiting.nodeId);
  if (found.kind !== 'waiting') return null;
  if (approver !== undefined && !found.approval.approvers.includes(approver)) return null;
  const records = await new ApprovalDecisions(services.control).read(found.approval);
  if (!records.outcome) return { approval: found.approval, records };
  // Decided, yet still waiting: its delivery was lost. Deliver it again (best effort: a read
  // must not fail for it; the next read or submission tries again).
  await deliverOutcome(services, found.approval, records.outcome, records.decisions).catch(
    () => undefined,
  );
  return null;
}
