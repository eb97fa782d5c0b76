import { api } from '../api/client';
import type { Worker } from '../api/types';
import { CopyId } from '../components/copy-id';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

/** Live workers, from their heartbeats. */
export default function WorkersPage() {
  useTitle('Workers');
  const workers = useResource(() => api.getAll<Worker>('/v1/workers'), [], {
    refreshMs: 5000,
  });
  const items = workers.data?.items ?? [];
  // A tenant's key gets these null: the workers are shared, where they run is the platform's.
  const hidden = items.some((w) => w.host === null);
  return (
    <section aria-labelledby="workers-title">
      <div class="page-head">
        <h1 id="workers-title">Workers</h1>
      </div>
      <ProblemBox error={workers.error} title="Workers could not be listed" />
      {workers.loading && !workers.data ? <Loading /> : null}
      {hidden ? (
        <p class="muted">
          The workers are shared by every tenant: their host, process and work in flight are shown
          to platform keys only.
        </p>
      ) : null}
      {workers.data ? (
        <div class="table-wrap">
          <table class="data" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">
                  Worker
                </th>
                <th scope="col" role="columnheader">
                  Host
                </th>
                <th scope="col" role="columnheader" class="num">
                  In flight
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Version
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Started
                </th>
                <th scope="col" role="columnheader">
                  Last seen
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((w) => (
                <tr role="row" key={w.id}>
                  <td role="cell" data-label="Worker">
                    <CopyId id={w.id} short />
                  </td>
                  <td role="cell" data-label="Host">
                    {w.host === null ? (
                      <span class="muted">—</span>
                    ) : (
                      <>
                        {w.host} <span class="muted">pid {w.pid}</span>
                      </>
                    )}
                  </td>
                  <td role="cell" data-label="In flight" class="num">
                    {w.inFlight ?? <span class="muted">—</span>} / {w.concurrency}
                  </td>
                  <td role="cell" data-label="Version" class="wide-only">
                    {w.version}
                  </td>
                  <td role="cell" data-label="Started" class="wide-only">
                    <Time iso={w.startedAt} />
                  </td>
                  <td role="cell" data-label="Last seen">
                    <Time iso={w.lastSeenAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? (
            <p class="empty">No live worker. Start one with plaita worker.</p>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
