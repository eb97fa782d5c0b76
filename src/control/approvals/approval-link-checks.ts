import { ApprovalDecisions, type ApprovalProgress } from './approval-decisions.js';
import { ConflictError, ForbiddenError } from '../../errors/control-errors.js';
import { loadPendingApproval, type PendingApproval } from './pending-approval.js';
import type { ApprovalDeps } from './submit-decision.js';

/** One approver of one approval node of an execution. */
export interface ApproverOf {
  tenantId: string;
  executionId: string;
  nodeId: string;
  approver: string;
}

/**
 * The approval a signed link pair may be issued for (docs/http-api.md §4), refused as a decision
 * would be: NotFoundError, ExecutionTerminalError or ConflictError when not waiting there,
 * ForbiddenError for an approver not on the list, ConflictError when the approval or this
 * approver already decided.
 */
export async function approvalToLink(
  services: Pick<ApprovalDeps, 'store' | 'resolver' | 'control'>,
  { tenantId, executionId, nodeId, approver }: ApproverOf,
): Promise<PendingApproval> {
  const approval = await loadPendingApproval(services, tenantId, executionId, nodeId);
  if (!approval.approvers.includes(approver))
    throw new ForbiddenError(`${approver} is not an approver of approval node ${nodeId}`);
  const records = await new ApprovalDecisions(services.control).read(approval);
  if (records.outcome) throw new ConflictError(`approval ${nodeId} is already decided`);
  if (records.decisions.some((d) => d.approver === approver))
    throw new ConflictError(`${approver} already decided approval ${nodeId}`);
  return approval;
}

/**
 * What a link's confirmation page asks (it never decides), refused already when there is nothing
 * left to decide: the wait the link was made for (`approvalId`) is over, the approval or its
 * approver already decided (ConflictError), or it is not waiting (as `loadPendingApproval`).
 */
export async function approvalToConfirm(
  services: Pick<ApprovalDeps, 'store' | 'resolver' | 'control'>,
  link: ApproverOf & { approvalId: string },
): Promise<ApprovalProgress> {
  const approval = await loadPendingApproval(
    services,
    link.tenantId,
    link.executionId,
    link.nodeId,
  );
  if (approval.approvalId !== link.approvalId)
    throw new ConflictError('the wait this link was made for is over');
  const records = await new ApprovalDecisions(services.control).read(approval);
  if (records.outcome) throw new ConflictError('this approval is already decided');
  if (records.decisions.some((d) => d.approver === link.approver))
    throw new ConflictError(`${link.approver} already decided this approval`);
  return { approval, records };
}
