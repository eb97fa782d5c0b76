import type { PlaitaClient } from '../../client/plaita-client.js';
import type { ControlStore } from '../../store/control-store.js';
import { ConflictError, ForbiddenError, InvalidRequestError } from '../../errors/control-errors.js';
import {
  ApprovalDecisions,
  type ApprovalProgress,
  type ApprovalRecords,
  type DecisionRecord,
  type OutcomeRecord,
} from './approval-decisions.js';
import { APPROVAL_EVENT_TYPE, approvalEvent } from './approval-event.js';
import { decideApproval, type Verdict } from './approval-strategy.js';
import {
  type ApprovalReads,
  loadPendingApproval,
  type PendingApproval,
} from './pending-approval.js';

/** What deciding an approval uses: the reads, the decisions' records, and the event's delivery. */
export interface ApprovalDeps extends ApprovalReads {
  control: ControlStore;
  client: PlaitaClient;
}

export interface DecisionRequest {
  tenantId: string;
  executionId: string;
  nodeId: string;
  approver: string;
  decision: Verdict;
  comment?: string | undefined;
  via: DecisionRecord['via'];
  /** A link names the visit it was made for: a later visit of the node refuses it. */
  approvalId?: string;
}

/**
 * Records one approver's decision (docs/http-api.md §4) and, when it decides the node's strategy,
 * delivers the `approval_decision` event, applied once (a fixed event id: a delivery that was
 * lost is sent again by a later submission or read). Refusals: NotFoundError (no such execution
 * or approval node), ConflictError (not waiting there, already decided, this approver already
 * decided), ExecutionTerminalError, ForbiddenError (not an approver on the list),
 * InvalidRequestError (a comment required or not taken).
 */
export async function submitDecision(
  services: ApprovalDeps,
  request: DecisionRequest,
): Promise<ApprovalProgress> {
  const approval = await loadPendingApproval(
    services,
    request.tenantId,
    request.executionId,
    request.nodeId,
  );
  checkRequest(approval, request);
  const book = new ApprovalDecisions(services.control);
  const before = await book.read(approval);
  if (before.outcome) {
    // Decided, yet still waiting here: the delivery was lost (an outage or a crash between the
    // outcome marker and the event). Deliver it again: its fixed event id is applied once.
    await deliverOutcome(services, approval, before.outcome, before.decisions);
    if (decidedAsAsked(before, request)) return { approval, records: before };
    throw new ConflictError(`approval ${approval.nodeId} is already decided`);
  }
  const recorded = await book.record(approval, {
    approver: request.approver,
    decision: request.decision,
    comment: request.comment ?? null,
    decidedAt: new Date().toISOString(),
    via: request.via,
  });
  // A recorded decision stands, even when delivering what it decided fails: the approver's
  // retry (or any later submission, or a read of the list) delivers it then.
  const records = await deliverOnce(services, book, approval);
  if (!recorded && !decidedAsAsked(records, request))
    throw new ConflictError(
      `${request.approver} already decided approval ${approval.nodeId}; a decision is final`,
    );
  return { approval, records };
}

/** The approver's recorded decision is this request's: a retry of it, answered as it was. */
function decidedAsAsked(records: ApprovalRecords, request: DecisionRequest): boolean {
  return records.decisions.some(
    (d) => d.approver === request.approver && d.decision === request.decision,
  );
}

/**
 * Sends the decided outcome's `approval_decision` event; sent again while the execution still
 * waits (a lost delivery), the fixed event id makes the repeat harmless.
 */
export async function deliverOutcome(
  services: Pick<ApprovalDeps, 'client'>,
  approval: PendingApproval,
  outcome: OutcomeRecord,
  decisions: readonly DecisionRecord[],
): Promise<void> {
  await services.client.sendEvent(
    approval.executionId,
    {
      type: APPROVAL_EVENT_TYPE,
      data: approvalEvent(approval, outcome, decisions),
      eventId: outcome.eventId,
    },
    { tenantId: approval.tenantId },
  );
}

function checkRequest(approval: PendingApproval, request: DecisionRequest): void {
  if (request.approvalId !== undefined && request.approvalId !== approval.approvalId)
    throw new ConflictError(
      `this was made for an earlier wait at approval node ${approval.nodeId}, which is over`,
    );
  if (!approval.approvers.includes(request.approver))
    throw new ForbiddenError(
      `${request.approver} is not an approver of approval node ${approval.nodeId}`,
    );
  const comment = request.comment?.trim() ?? '';
  if (approval.requireComments && comment === '')
    throw commentRefusal('this approval requires a comment');
  if (!approval.allowComments && comment !== '')
    throw commentRefusal('this approval does not take comments');
}

function commentRefusal(message: string): InvalidRequestError {
  return new InvalidRequestError(message, { fieldIssues: [{ path: 'body.comment', message }] });
}

/**
 * Applies the strategy to the decisions recorded so far; when decided, the caller that creates
 * the outcome marker delivers the event (a fixed event id too, so a repeat is applied once).
 * A failed delivery keeps the marker: the outcome is decided, and delivered again later.
 */
async function deliverOnce(
  services: ApprovalDeps,
  book: ApprovalDecisions,
  approval: PendingApproval,
): Promise<ApprovalRecords> {
  const records = await book.read(approval);
  if (records.outcome) return records;
  const result = decideApproval(approval.strategy, approval.approvers, records.decisions);
  if (!result.decided) return records;
  const outcome = {
    finalDecision: result.finalDecision,
    decidedAt: new Date().toISOString(),
    eventId: `${approval.approvalId}.decision`,
  };
  if (!(await book.settle(approval, outcome))) return book.read(approval);
  await deliverOutcome(services, approval, outcome, records.decisions);
  return { ...records, outcome };
}
