import { messageOf } from '../../api/client';
import type { Approval, SignedLinks } from '../../api/types';
import { CopyId } from '../copy-id';
import { describedBy, Field } from '../field';
import { Time } from '../time';
import type { ApprovalDecision } from './use-approval-decision';

/** Approve / Reject as a pending approver (with a comment where the flow asks), or a link. */
export function DecideForm(props: { approval: Approval; decision: ApprovalDecision }) {
  const { approval, decision: d } = props;
  const idBase = `ap-${approval.approvalId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const needComment = approval.requireComments && d.comment.trim() === '';
  const what = approval.title || approval.nodeId;
  return (
    <div class="decide">
      <Field id={`${idBase}-approver`} label="Decide as" error={d.approverError}>
        <select
          {...describedBy(`${idBase}-approver`, d.approverError)}
          value={d.approver}
          onChange={(e) => d.setApprover(e.currentTarget.value)}
        >
          {d.pending.map((a) => (
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
          error={d.commentError}
        >
          <textarea
            {...describedBy(`${idBase}-comment`, d.commentError)}
            rows={2}
            value={d.comment}
            onInput={(e) => d.setComment(e.currentTarget.value)}
          />
        </Field>
      ) : null}
      <div class="actions">
        <button
          type="button"
          class="button approve"
          disabled={d.busy || needComment || !d.approver}
          onClick={() => void d.decide('approve')}
          aria-label={`Approve ${what}`}
        >
          <span aria-hidden="true">✓ </span>Approve
        </button>
        <button
          type="button"
          class="button reject"
          disabled={d.busy || needComment || !d.approver}
          onClick={() => void d.decide('reject')}
          aria-label={`Reject ${what}`}
        >
          <span aria-hidden="true">✕ </span>Reject
        </button>
        <button
          type="button"
          class="button ghost"
          disabled={!d.approver}
          onClick={() => void d.makeLinks()}
        >
          Copy signed link
        </button>
      </div>
      {d.error && !d.commentError && !d.approverError ? (
        <p class="field-error" role="alert">
          {messageOf(d.error)}
        </p>
      ) : null}
      {d.links ? <LinksIssued approver={d.approver} links={d.links} /> : null}
    </div>
  );
}

/** The links just issued, for an approver without an account. */
function LinksIssued({ approver, links }: { approver: string; links: SignedLinks }) {
  return (
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
  );
}
