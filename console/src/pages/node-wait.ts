import type { ExecutionView, NodeView } from '../api/types';

/** The built-in types that wait for something outside the run (docs/flow-format.md §3.18). */
const WAITING_TYPES = new Set([
  'approval',
  'event',
  'delay',
  'http_callback',
  'redis_queue',
  'kafka_queue',
]);

/**
 * How long a suspending node waited, in ms: from its suspension (its timing's end) to the next
 * node's start, or to `now` while it still waits. Null for a node that did not wait. The run
 * of the node itself is its `durationMs`; a human's decision can take days on top of it.
 */
export function waitedMs(view: ExecutionView, node: NodeView, now: number): number | null {
  if (node.type === null || !WAITING_TYPES.has(node.type) || node.endedAt === null) return null;
  const from = Date.parse(node.endedAt);
  if (node.status === 'waiting') return Math.max(0, now - from);
  const at = view.nodes.indexOf(node);
  const after = view.nodes[at + 1];
  if (!after) return null;
  return Math.max(0, Date.parse(after.startedAt) - from);
}

/** Who decided an approval and how, from its resumed output (the approval event's payload). */
export interface ApprovalOutcome {
  decision: string;
  details: Array<{ approver: string; decision: string; comment: string | null }>;
}

export function approvalOutcome(node: NodeView): ApprovalOutcome | null {
  if (node.type !== 'approval') return null;
  const payload = (node.output as { event_data?: { event_data?: unknown } } | null)?.event_data
    ?.event_data as
    | {
        final_decision?: unknown;
        approval_details?: Array<{ approver_id?: unknown; decision?: unknown; comments?: unknown }>;
      }
    | undefined;
  if (typeof payload?.final_decision !== 'string') return null;
  const details = Array.isArray(payload.approval_details) ? payload.approval_details : [];
  return {
    decision: payload.final_decision,
    details: details.map((d) => ({
      approver: typeof d.approver_id === 'string' ? d.approver_id : '?',
      decision: typeof d.decision === 'string' ? d.decision : '?',
      comment: typeof d.comments === 'string' && d.comments !== '' ? d.comments : null,
    })),
  };
}
