import type { Verdict } from '../../control/approvals/approval-strategy.js';
import type { ApprovalView } from './approval-view.js';

/** What a signed link's page shows (docs/http-api.md §4): confirm, done, or why the link is refused. */
export type ApprovalPage =
  | {
      kind: 'confirm';
      approval: ApprovalView;
      approver: string;
      decision: Verdict;
      expiresAt: number;
    }
  | { kind: 'done'; approval: ApprovalView; approver: string; decision: Verdict }
  | { kind: 'refused'; title: string; message: string };

const VERB: Record<Verdict, string> = { approve: 'Approve', reject: 'Reject' };
const PAST: Record<Verdict, string> = { approve: 'approved', reject: 'rejected' };

/**
 * A small self-contained page (no scripts, no external assets, readable on a phone); every
 * value is escaped. The confirmation page never decides: only its form's POST does.
 */
export function renderApprovalPage(page: ApprovalPage): string {
  switch (page.kind) {
    case 'confirm':
      return layout(`${VERB[page.decision]}: ${page.approval.title}`, confirmBody(page));
    case 'done':
      return layout(`${PAST[page.decision]}: ${page.approval.title}`, doneBody(page));
    case 'refused':
      return layout(page.title, `<h1>${esc(page.title)}</h1><p>${esc(page.message)}</p>`);
  }
}

function confirmBody(page: Extract<ApprovalPage, { kind: 'confirm' }>): string {
  const { approval, decision } = page;
  const comment = approval.allowComments
    ? `<label for="comment">Comment${approval.requireComments ? ' (required)' : ' (optional)'}</label>
<textarea id="comment" name="comment" rows="4" maxlength="4000"${approval.requireComments ? ' required' : ''}></textarea>`
    : '';
  return `<h1>${VERB[decision]} this request?</h1>
${summary(approval, page.approver)}
<form method="post">
${comment}
<button type="submit" class="${decision}">${VERB[decision]}</button>
</form>
<p class="muted">Nothing is decided until you press the button. This link can be used once and
expires ${esc(readableTime(new Date(page.expiresAt).toISOString()))}.</p>`;
}

function doneBody(page: Extract<ApprovalPage, { kind: 'done' }>): string {
  const { approval } = page;
  const state = approval.decided
    ? `The approval is decided: <strong>${esc(PAST[approval.finalDecision ?? page.decision])}</strong>.`
    : 'The approval waits for other approvers.';
  return `<h1>You ${esc(PAST[page.decision])}</h1>
${summary(approval, page.approver)}
<p>${state} You can close this page.</p>`;
}

function summary(approval: ApprovalView, approver: string): string {
  return `<h2>${esc(approval.title)}</h2>
<div class="content">${esc(approval.content)}</div>
<dl>
<dt>Approver</dt><dd>${esc(approver)}</dd>
<dt>Decided by</dt><dd>${esc(strategyText(approval))}</dd>
<dt>Waiting since</dt><dd>${esc(readableTime(approval.since))}</dd>
</dl>`;
}

function strategyText(approval: ApprovalView): string {
  const n = approval.approvers.length;
  switch (approval.strategy) {
    case 'any':
      return n === 1 ? 'your decision alone' : `the first of ${n} approvers to decide`;
    case 'all':
      return `all ${n} approvers (one rejection rejects)`;
    case 'majority':
      return `a majority of ${n} approvers`;
  }
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1rem;color:#1b1b1b;background:#f6f6f4}
main{max-width:36rem;margin:0 auto;background:#fff;padding:1.25rem;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin:0 0 .75rem}h2{font-size:1.15rem;margin:.5rem 0}
.content{white-space:pre-wrap;overflow-wrap:anywhere;padding:.75rem;background:#f3f3f0;border-radius:6px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
label{display:block;margin:.75rem 0 .25rem}textarea{width:100%;box-sizing:border-box;font:inherit}
button{display:block;width:100%;margin-top:1rem;padding:.8rem;font:inherit;font-weight:600;border:0;border-radius:6px;color:#fff}
.approve{background:#1f7a3a}.reject{background:#b42318}.muted{color:#666;font-size:.9rem}
</style></head>
<body><main>
${body}
</main></body></html>
`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A page read by a person, without the console's clock settings: `2026-12-02 16:39 UTC`. */
function readableTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}
