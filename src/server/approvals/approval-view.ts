import type { ApprovalProgress } from '../../control/approvals/approval-decisions.js';
import type { Verdict } from '../../control/approvals/approval-strategy.js';
import type { PendingApproval } from '../../control/approvals/pending-approval.js';

/**
 * An approval as the API shows it (docs/http-api.md §4): what is asked, of whom (the pending
 * approval, its tenant left out: the caller's own), and how far it got.
 */
export type ApprovalView = Omit<PendingApproval, 'tenantId'> & {
  decisions: Array<{
    approver: string;
    decision: Verdict;
    comment: string | null;
    decidedAt: string;
  }>;
  /** True once the strategy is decided and the event was handed over for delivery. */
  decided: boolean;
  finalDecision: Verdict | null;
};

export function approvalView({ approval, records }: ApprovalProgress): ApprovalView {
  // `since` last, as the API has always written it.
  const { tenantId: _tenant, since, ...asked } = approval;
  return {
    ...asked,
    decisions: records.decisions.map((d) => ({
      approver: d.approver,
      decision: d.decision,
      comment: d.comment,
      decidedAt: d.decidedAt,
    })),
    decided: records.outcome !== null,
    finalDecision: records.outcome?.finalDecision ?? null,
    since,
  };
}
