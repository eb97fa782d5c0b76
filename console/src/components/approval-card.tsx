import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../api/client';
import type { Approval, Page } from '../api/types';
import { can, useCaller } from '../session';
import { copyText, CopyId } from './copy-id';
import { describedBy, Field } from './field';
import { notify } from './notice';
import { Time } from './time';

/** The approval an execution waits on, read from the inbox (`GET /v1/approvals`, paged). */
export async function findApproval(executionId: string, nodeId: string): Promise<Approval | null> {
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const page: Page<Approval> = await api.get<Page<Approval>>('/v1/approvals', {
      limit: 200,
      cursor,
    });
    const found = page.items.find((a) => a.executionId === executionId && a.nodeId === nodeId);
    if (found) return found;
    if (!page.nextCursor) return null;
    cursor = page.nextCursor;
  }
  return null;
}

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
  const caller = useCaller();
  const pending = approval.approvers.filter(
    (a) => !approval.decisions.some((d) => d.approver === a),
  );
  const initial =
    props.approver && pending.includes(props.approver) ? props.approver : (pending[0] ?? '');
  const [picked, setApprover] = useState(initial);
  // After a decision that did not settle the approval, the one who decided is no longer
  // pending: fall back to the first who is, never re-send a decision that would be a 409.
  const approver = pending.includes(picked) ? picked : initial;
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [links, setLinks] = useState<{
    approveUrl: string;
    rejectUrl: string;
    expiresAt: string;
  } | null>(null);
  const base = `/v1/approvals/${seg(approval.executionId)}/${seg(approval.nodeId)}`;
  const idBase = `ap-${approval.approvalId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      const next = await api.post<Approval>(`${base}/decisions`, {
        approver,
        decision,
        ...(comment.trim() ? { comment: comment.trim() } : {}),
      });
      setComment('');
      notify(`${decision === 'approve' ? 'Approved' : 'Rejected'} as ${approver}`);
      props.onDecided(next);
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  };
  const makeLinks = async () => {
    setError(null);
    try {
      const issued = await api.post<{ approveUrl: string; rejectUrl: string; expiresAt: string }>(
        `${base}/links`,
        {
          approver,
        },
      );
      setLinks(issued);
      await copyText(issued.approveUrl);
      notify(`Approve link for ${approver} copied`);
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const fieldError = (name: string) => (error instanceof ApiError ? error.field(name) : undefined);
  const commentError = fieldError('comment');
  const approverError = fieldError('approver');
  const needComment = approval.requireComments && comment.trim() === '';
  const operator = can(caller, 'operator');

  return (
    <article class="card approval" data-approval={`${approval.executionId}/${approval.nodeId}`}>
      <header class="card-head">
        <Heading>{approval.title || approval.nodeId}</Heading>
        <span class="muted small">
          waiting since <Time iso={approval.since} />
        </span>
      </header>
      {approval.content ? <p class="approval-content">{approval.content}</p> : null}
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
      {approval.approvers.length === 0 ? (
        <p class="problem" role="note">
          No one can decide this: its flow named no approver (the approvers reference gave nothing).
          Cancel the execution and fix the flow.
        </p>
      ) : null}
      {operator && !approval.decided && pending.length > 0 ? (
        <div class="decide">
          <Field id={`${idBase}-approver`} label="Decide as" error={approverError}>
            <select
              {...describedBy(`${idBase}-approver`, approverError)}
              value={approver}
              onChange={(e) => setApprover(e.currentTarget.value)}
            >
              {pending.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </Field>
          {approval.allowComments || approval.requireComments ? (
            <Field
              id={`${idBase}-comment`}
              label={approval.requireComments ? 'Comment (required)' : 'Comment (optional)'}
              error={commentError}
            >
              <textarea
                {...describedBy(`${idBase}-comment`, commentError)}
                rows={2}
                value={comment}
                onInput={(e) => setComment(e.currentTarget.value)}
              />
            </Field>
          ) : null}
          <div class="actions">
            <button
              type="button"
              class="button approve"
              disabled={busy || needComment || !approver}
              onClick={() => void decide('approve')}
              aria-label={`Approve ${approval.title || approval.nodeId}`}
            >
              <span aria-hidden="true">✓ </span>Approve
            </button>
            <button
              type="button"
              class="button reject"
              disabled={busy || needComment || !approver}
              onClick={() => void decide('reject')}
              aria-label={`Reject ${approval.title || approval.nodeId}`}
            >
              <span aria-hidden="true">✕ </span>Reject
            </button>
            <button
              type="button"
              class="button ghost"
              disabled={!approver}
              onClick={() => void makeLinks()}
            >
              Copy signed link
            </button>
          </div>
          {error && !commentError && !approverError ? (
            <p class="field-error" role="alert">
              {messageOf(error)}
            </p>
          ) : null}
          {links ? (
            <div class="links small">
              <p>
                Links for {approver}, single-use, valid until <Time iso={links.expiresAt} />:
              </p>
              <p>
                Approve: <CopyId id={links.approveUrl} />
              </p>
              <p>
                Reject: <CopyId id={links.rejectUrl} />
              </p>
            </div>
          ) : null}
        </div>
      ) : approval.decided ? (
        <p>
          Decided: <strong>{approval.finalDecision}</strong>
        </p>
      ) : null}
    </article>
  );
}
