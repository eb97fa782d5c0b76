import { seg } from '../../api/client';
import type { Approval } from '../../api/types';
import { CopyId } from '../copy-id';
import { Time } from '../time';

/** What the approval is about: its execution (when asked), node, strategy, who decides, so far. */
export function ApprovalFacts(props: { approval: Approval; showExecution?: boolean | undefined }) {
  const { approval } = props;
  return (
    <dl class="facts">
      {props.showExecution ? (
        <>
          <dt>Execution</dt>
          <dd>
            <CopyId
              id={approval.executionId}
              href={`/executions/${seg(approval.executionId)}`}
              short
            />
          </dd>
        </>
      ) : null}
      <dt>Node</dt>
      <dd>
        <code>{approval.nodeId}</code>
      </dd>
      <dt>Strategy</dt>
      <dd>{approval.strategy}</dd>
      <dt>Approvers</dt>
      <dd>{approval.approvers.join(', ') || '—'}</dd>
      {approval.decisions.length > 0 ? (
        <>
          <dt>Decisions</dt>
          <dd>
            <ul class="plain-list">
              {approval.decisions.map((d) => (
                <li key={d.approver}>
                  {d.approver}: <strong>{d.decision}</strong>
                  {d.comment ? ` — “${d.comment}”` : ''} (<Time iso={d.decidedAt} />)
                </li>
              ))}
            </ul>
          </dd>
        </>
      ) : null}
    </dl>
  );
}
