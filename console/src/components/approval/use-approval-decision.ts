import { useState } from 'preact/hooks';
import { api, ApiError, seg } from '../../api/client';
import type { Approval, SignedLinks } from '../../api/types';
import { copyText } from '../copy-id';
import { notify } from '../notice';

/**
 * Deciding an approval as one of its pending approvers (`preferred` when pending, else the
 * first), with a comment, or issuing that approver's signed links (the approve one copied).
 */
export function useApprovalDecision(
  approval: Approval,
  preferred: string | undefined,
  onDecided: (approval: Approval) => void,
) {
  const pending = approval.approvers.filter(
    (a) => !approval.decisions.some((d) => d.approver === a),
  );
  const initial = preferred && pending.includes(preferred) ? preferred : (pending[0] ?? '');
  const [picked, setApprover] = useState(initial);
  // After a decision that did not settle the approval, the one who decided is no longer
  // pending: fall back to the first who is, never re-send a decision that would be a 409.
  const approver = pending.includes(picked) ? picked : initial;
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [links, setLinks] = useState<SignedLinks | null>(null);
  const base = `/v1/approvals/${seg(approval.executionId)}/${seg(approval.nodeId)}`;
  const failed = (e: unknown) => setError(e instanceof Error ? e : new Error(String(e)));

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
      onDecided(next);
    } catch (e) {
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  const makeLinks = async () => {
    setError(null);
    try {
      const issued = await api.post<SignedLinks>(`${base}/links`, { approver });
      setLinks(issued);
      await copyText(issued.approveUrl);
      notify(`Approve link for ${approver} copied`);
    } catch (e) {
      failed(e);
    }
  };
  const fieldError = (name: string) => (error instanceof ApiError ? error.field(name) : undefined);

  return {
    pending,
    approver,
    setApprover,
    comment,
    setComment,
    busy,
    error,
    commentError: fieldError('comment'),
    approverError: fieldError('approver'),
    links,
    decide,
    makeLinks,
  };
}

export type ApprovalDecision = ReturnType<typeof useApprovalDecision>;
