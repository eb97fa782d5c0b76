import { api } from '../api/client';
import type { AuditEntry, Page } from '../api/types';
import { CopyId } from '../components/copy-id';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { setQuery, useLocation } from '../router';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

/** The audit log (admins): every write, newest first. */
export default function AuditPage() {
  useTitle('Audit log');
  const { query } = useLocation();
  const cursor = query.get('cursor');
  const page = useResource(
    () => api.get<Page<AuditEntry>>('/v1/audit', { cursor, limit: 100 }),
    [cursor],
  );
  const items = page.data?.items ?? [];
  return (
    <section aria-labelledby="audit-title">
      <div class="page-head">
        <h1 id="audit-title">Audit log</h1>
      </div>
      <ProblemBox error={page.error} title="The audit log could not be read" />
      {page.loading && !page.data ? <Loading /> : null}
      {page.data ? (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col" class="wide-only">
                  Key
                </th>
                <th scope="col" class="wide-only">
                  Tenant
                </th>
                <th scope="col" class="wide-only">
                  Request
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((entry) => (
                <tr key={entry.id}>
                  <td data-label="Time">
                    <Time iso={entry.at} />
                  </td>
                  <td data-label="Action">
                    <code>{entry.action}</code>
                  </td>
                  <td data-label="Target" class="detail">
                    {entry.target}
                  </td>
                  <td data-label="Key" class="wide-only">
                    {entry.keyId ? <CopyId id={entry.keyId} short /> : '—'}{' '}
                    <span class="muted">{entry.role}</span>
                  </td>
                  <td data-label="Tenant" class="wide-only">
                    {entry.tenant}
                  </td>
                  <td data-label="Request" class="wide-only">
                    <CopyId id={entry.requestId} short />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? <p class="empty">Nothing was written yet.</p> : null}
        </div>
      ) : null}
      <Pager
        cursor={cursor}
        nextCursor={page.data?.nextCursor}
        onFirst={() => setQuery({ cursor: null }, false)}
        onNext={(next) => setQuery({ cursor: next }, false)}
      />
    </section>
  );
}
