/**
 * THE approval policy (docs/http-api.md §4, docs/flow-format.md §3.18): from the decisions made so far, is the
 * approval decided, and how? Pure: no I/O, no clock. Every route that records a decision asks
 * this one function, and `test/server/approvals-strategy.test.ts` holds its table.
 */

export const APPROVAL_STRATEGIES = ['any', 'all', 'majority'] as const;
export type ApprovalStrategy = (typeof APPROVAL_STRATEGIES)[number];

export const VERDICTS = ['approve', 'reject'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One approver's decision, as the policy sees it. */
export interface Vote {
  approver: string;
  decision: Verdict;
}

export type ApprovalOutcome = { decided: false } | { decided: true; finalDecision: Verdict };

const PENDING: ApprovalOutcome = { decided: false };

const decided = (finalDecision: Verdict): ApprovalOutcome => ({ decided: true, finalDecision });

/**
 * `votes` oldest first. Only the first vote of each listed approver counts; nothing is decided
 * before the first vote.
 * - `any`: the first vote decides.
 * - `all`: every approver approves → approve; anyone rejects → reject.
 * - `majority`: more than half approve → approve; once approval can no longer reach more than
 *   half (more than half rejected, or an even split is certain) → reject. A tie is no majority
 *   for approving, so it rejects rather than waiting forever.
 */
export function decideApproval(
  strategy: ApprovalStrategy,
  approvers: readonly string[],
  votes: readonly Vote[],
): ApprovalOutcome {
  const counted = countedVotes(approvers, votes);
  const first = counted[0];
  if (first === undefined) return PENDING;
  const total = new Set(approvers).size;
  const approvals = counted.filter((vote) => vote.decision === 'approve').length;
  const rejections = counted.length - approvals;
  switch (strategy) {
    case 'any':
      return decided(first.decision);
    case 'all':
      if (rejections > 0) return decided('reject');
      return approvals === total ? decided('approve') : PENDING;
    case 'majority':
      if (approvals * 2 > total) return decided('approve');
      return (total - rejections) * 2 <= total ? decided('reject') : PENDING;
  }
}

/** The first vote of each approver on the list, in order; others are ignored. */
function countedVotes(approvers: readonly string[], votes: readonly Vote[]): Vote[] {
  const listed = new Set(approvers);
  const seen = new Set<string>();
  return votes.filter((vote) => {
    if (!listed.has(vote.approver) || seen.has(vote.approver)) return false;
    seen.add(vote.approver);
    return true;
  });
}
