import type { DecisionRecord, OutcomeRecord } from './approval-decisions.js';
import type { PendingApproval } from './pending-approval.js';

export const APPROVAL_EVENT_TYPE = 'approval_decision';

/** The `approval_decision` payload of docs/flow-format.md §3.18, as the approval node expects it. */
export interface ApprovalEventData {
  node_id: string;
  execution_id: string;
  flow_id: string | null;
  tenant_id: string;
  trigger_type: 'approval_completed';
  approval_id: string;
  final_decision: OutcomeRecord['finalDecision'];
  approval_details: Array<{
    approver_id: string;
    decision: DecisionRecord['decision'];
    comments: string | null;
    timestamp: string;
  }>;
  timestamp: string;
  success: true;
}

/** Pure: the payload delivered once `outcome` is reached, with every decision (oldest first). */
export function approvalEvent(
  approval: PendingApproval,
  outcome: OutcomeRecord,
  decisions: readonly DecisionRecord[],
): ApprovalEventData {
  return {
    node_id: approval.nodeId,
    execution_id: approval.executionId,
    flow_id: approval.flowId,
    tenant_id: approval.tenantId,
    trigger_type: 'approval_completed',
    approval_id: approval.approvalId,
    final_decision: outcome.finalDecision,
    approval_details: decisions.map((d) => ({
      approver_id: d.approver,
      decision: d.decision,
      comments: d.comment,
      timestamp: d.decidedAt,
    })),
    timestamp: outcome.decidedAt,
    success: true,
  };
}
