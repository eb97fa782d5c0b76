import type { ApprovalProgress } from '../../control/approvals/approval-decisions.js';
import type { Verdict } from '../../control/approvals/approval-strategy.js';
import type { PendingApproval } from '../../control/approvals/pending-approval.js';

/** An approval as the API shows it (docs/http-api.md §4): what is asked, of whom, and how far it got. */
export interface ApprovalView {
  executionId: string;
  nodeId: string;
  approvalId: string;
  flowId: string | null;
  flowVersion: string | null;
  title: string;
  content: string;
  approvers: string[];
  strategy: PendingApproval['strategy'];
  allowComments: boolean;
  requireComments: boolean;
  decisions: Array<{
    approver: string;
    decision: Verdict;
    comment: string | null;
    decidedAt: string;
  }>;
  /** True once the strategy is decided and the event was handed over for delivery. */
  decided: boolean;
  finalDecision: Verdict | null;
  since: string;
}

export function approvalView({ approval, records }: ApprovalProgress): ApprovalView {
  return {
    executionId: approval.executionId,
    nodeId: approval.nodeId,
    approvalId: approval.approvalId,
    flowId: approval.flowId,
    flowVersion: approval.flowVersion,
    title: approval.title,
    content: approval.content,
    approvers: approval.approvers,
    strategy: approval.strategy,
    allowComments: approval.allowComments,
    requireComments: approval.requireComments,
    decisions: records.decisions.map((d) => ({
      approver: d.approver,
      decision: d.decision,
      comment: d.comment,
      decidedAt: d.decidedAt,
    })),
    decided: records.outcome !== null,
    finalDecision: records.outcome?.finalDecision ?? null,
    since: approval.since,
  };
}
