import { api } from '../api/client';
import type { AuditEntry, Page } from '../api/types';
import { CopyId } from '../components/copy-id';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { setQuery, useLocation } from '../router';
import { can, useCaller } from '../session';
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
  const caller = useCaller();
  const items = page.data?.items ?? [];
  // Reached by its shortcut (g l) too, which every role has.
  if (!can(caller, 'admin'))
    return (
      <section>
        <h1>Audit log</h1>
        <p>Only an admin key can read the audit log.</p>
      </section>
    );
  return (
    <section aria-labelledby="audit-title">
      <div class="page-head">
        <h1 id="audit-title">Audit log</h1>
      </div>
      <ProblemBox error={page.error} title="The audit log could not be read" />
      {page.loading && !page.data ? <Loading /> : null}
      {page.data ? (
        <div class="table-wrap">
          <table class="data" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">
                  Time
                </th>
                <th scope="col" role="columnheader">
                  Action
                </th>
                <th scope="col" role="columnheader">
                  Target
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Key
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Tenant
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Request
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((entry) => (
                <tr role="row" key={entry.id}>
                  <td role="cell" data-label="Time">
                    <Time iso={entry.at} />
                  </td>
                  <td role="cell" data-label="Action">
                    <code>{entry.action}</code>
                  </td>
                  <td role="cell" data-label="Target" class="detail">
                    {entry.target}
                  </td>
                  <td role="cell" data-label="Key" class="wide-only">
                    {entry.keyId ? <CopyId id={entry.keyId} short /> : '—'}{' '}
                    <span class="muted">{entry.role}</span>
                  </td>
                  <td role="cell" data-label="Tenant" class="wide-only">
                    {entry.tenant}
                  </td>
                  <td role="cell" data-label="Request" class="wide-only">
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
