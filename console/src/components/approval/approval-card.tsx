import type { Approval } from '../../api/types';
import { can, useCaller } from '../../session';
import { Time } from '../time';
import { ApprovalFacts } from './approval-facts';
import { DecideForm } from './decide-form';
import { useApprovalDecision } from './use-approval-decision';

/**
 * One pending approval: what is asked, of whom, the decisions so far; Approve / Reject in one
 * click (as the chosen approver, with an optional comment); a signed link to copy for an
 * approver without an account.
 */
export function ApprovalCard(props: {
  approval: Approval;
  approver?: string;
  onDecided: (approval: Approval) => void;
  showExecution?: boolean;
  /** The card title's heading level: 2 on a page of cards, 3 (default) inside a section. */
  headingLevel?: 2 | 3;
}) {
  const { approval } = props;
  const Heading = props.headingLevel === 2 ? 'h2' : 'h3';
  const operator = can(useCaller(), 'operator');
  const decision = useApprovalDecision(approval, props.approver, props.onDecided);
  return (
    <article class="card approval" data-approval={`${approval.executionId}/${approval.nodeId}`}>
      <header class="card-head">
        <Heading>{approval.title || approval.nodeId}</Heading>
        <span class="muted small">
          waiting since <Time iso={approval.since} />
        </span>
      </header>
      {approval.content ? <p class="approval-content">{approval.content}</p> : null}
      <ApprovalFacts approval={approval} showExecution={props.showExecution} />
      {approval.approvers.length === 0 ? (
        <p class="problem" role="note">
          No one can decide this: its flow named no approver (the approvers reference gave nothing).
          Cancel the execution and fix the flow.
        </p>
      ) : null}
      {operator && !approval.decided && decision.pending.length > 0 ? (
        <DecideForm approval={approval} decision={decision} />
      ) : approval.decided ? (
        <p>
          Decided: <strong>{approval.finalDecision}</strong>
        </p>
      ) : null}
    </article>
  );
}
