import { api, seg } from '../api/client';
import type { FlowSummary, Page } from '../api/types';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { setQuery, useLocation } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

/** The tenant's flows; each opens its versions, graph and document. */
export default function FlowsPage() {
  useTitle('Flows');
  const caller = useCaller();
  const { query } = useLocation();
  const cursor = query.get('cursor');
  const page = useResource(
    () => api.get<Page<FlowSummary>>('/v1/flows', { cursor, limit: 100 }),
    [cursor],
  );
  const items = page.data?.items ?? [];
  return (
    <section aria-labelledby="flows-title">
      <div class="page-head">
        <h1 id="flows-title">Flows</h1>
        {can(caller, 'admin') ? (
          <a class="button primary" href="/flows/new">
            New flow
          </a>
        ) : null}
      </div>
      <ProblemBox error={page.error} title="Flows could not be listed" />
      {page.loading && !page.data ? <Loading /> : null}
      {page.data ? (
        <div class="table-wrap">
          <table class="data" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">
                  Flow
                </th>
                <th scope="col" role="columnheader">
                  Latest published
                </th>
                <th scope="col" role="columnheader" class="num">
                  Versions
                </th>
                <th scope="col" role="columnheader">
                  Updated
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((flow) => (
                <tr role="row" key={flow.flowId}>
                  <td role="cell" data-label="Flow">
                    <a href={`/flows/${seg(flow.flowId)}`}>{flow.flowId}</a>
                  </td>
                  <td role="cell" data-label="Latest published">
                    {flow.latestVersion ?? <span class="muted">none (drafts only)</span>}
                  </td>
                  <td role="cell" data-label="Versions" class="num">
                    {flow.versionCount}
                  </td>
                  <td role="cell" data-label="Updated">
                    <Time iso={flow.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? (
            <p class="empty">
              No flow yet. {can(caller, 'admin') ? <a href="/flows/new">Create one</a> : null}
            </p>
          ) : null}
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
