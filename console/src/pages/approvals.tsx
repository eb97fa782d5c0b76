import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { Approval, Page } from '../api/types';
import { ApprovalCard } from '../components/approval/approval-card';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { setQuery, useLocation } from '../router';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

/** The inbox of pending approvals: filter by approver (kept in the URL), decide in one click. */
export default function ApprovalsPage() {
  useTitle('Approvals');
  const { query } = useLocation();
  const approver = query.get('approver') ?? '';
  const cursor = query.get('cursor');
  const [text, setText] = useState(approver);
  useEffect(() => setText(approver), [approver]);
  const page = useResource(
    () => api.get<Page<Approval>>('/v1/approvals', { approver, limit: 50, cursor }),
    [approver, cursor],
    { refreshMs: 10_000 },
  );
  const items = (page.data?.items ?? []).filter((a) => !a.decided);
  return (
    <section aria-labelledby="approvals-title">
      <div class="page-head">
        <h1 id="approvals-title">Approvals</h1>
      </div>
      <form
        class="filters"
        role="search"
        aria-label="Filter approvals"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ approver: text.trim(), cursor: null });
        }}
      >
        <div class="filter-row">
          <label>
            <span>Approver</span>
            <input
              data-filter
              type="search"
              placeholder="anyone (e.g. alice@example.com)"
              size={30}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </label>
          <button type="submit" class="button">
            Filter
          </button>
        </div>
      </form>
      <ProblemBox error={page.error} title="Approvals could not be listed" />
      {page.loading && !page.data ? <Loading /> : null}
      {page.data && items.length === 0 ? (
        <p class="empty">
          {/* A page may be empty and still have a next one (docs/http-api.md §4 Approvals). */}
          {page.data.nextCursor
            ? 'None on this page; there are more further on.'
            : `No approval is waiting${approver ? ` for ${approver}` : ''}.`}
        </p>
      ) : null}
      <div class="cards">
        {items.map((approval) => (
          <ApprovalCard
            key={approval.approvalId}
            approval={approval}
            approver={approver}
            showExecution
            headingLevel={2}
            onDecided={page.reload}
          />
        ))}
      </div>
      <Pager
        cursor={cursor}
        nextCursor={page.data?.nextCursor}
        onFirst={() => setQuery({ cursor: null }, false)}
        onNext={(next) => setQuery({ cursor: next }, false)}
      />
    </section>
  );
}
