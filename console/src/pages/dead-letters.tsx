import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../api/client';
import type { DeadLetter, Page } from '../api/types';
import { CopyId } from '../components/copy-id';
import { JsonView } from '../components/json-view';
import { notify } from '../components/notice';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { setQuery, useLocation } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

function payloadOf(letter: DeadLetter): unknown {
  try {
    return JSON.parse(letter.payload) as unknown;
  } catch {
    return letter.payload;
  }
}

/** Messages no worker could handle: why, replay one or all (after a fix), purge. */
export default function DeadLettersPage() {
  useTitle('Dead letters');
  const caller = useCaller();
  const { query } = useLocation();
  const cursor = query.get('cursor');
  const page = useResource(
    () => api.get<Page<DeadLetter>>('/v1/dead-letters', { cursor, limit: 50 }),
    [cursor],
    {
      refreshMs: 10_000,
    },
  );
  const [busy, setBusy] = useState(false);
  const items = page.data?.items ?? [];
  const replay = async (ids: string[]) => {
    setBusy(true);
    let done = 0;
    // A letter the server refuses (409: it could only be dead-lettered again) is left in place
    // and named; the others are still replayed. Any other failure stops the run.
    const refused: string[] = [];
    try {
      for (const id of ids) {
        try {
          await api.post(`/v1/dead-letters/${seg(id)}/replay`);
          done += 1;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 'conflict')) throw e;
          refused.push(e.message);
        }
      }
      const replayed = `Replayed ${done} dead letter${done === 1 ? '' : 's'}`;
      if (refused.length === 0) notify(replayed);
      else {
        const notReplayed = `${refused.length === 1 ? 'Not replayed' : `${refused.length} not replayed`}: ${refused[0]}`;
        notify(done === 0 ? notReplayed : `${replayed}. ${notReplayed}`, 'error');
      }
    } catch (e) {
      notify(`Replayed ${done}; then: ${messageOf(e)}`, 'error');
    } finally {
      setBusy(false);
      page.reload();
    }
  };
  const purge = async () => {
    if (!window.confirm('Remove every dead letter? This cannot be undone.')) return;
    try {
      const { purged } = await api.delete<{ purged: number }>('/v1/dead-letters');
      notify(`Purged ${purged} dead letters`);
    } catch (e) {
      notify(messageOf(e), 'error');
    }
    page.reload();
  };
  return (
    <section aria-labelledby="dead-title">
      <div class="page-head">
        <h1 id="dead-title">Dead letters</h1>
        <div class="actions">
          {can(caller, 'operator') ? (
            <button
              type="button"
              class="button"
              disabled={busy || items.length === 0}
              onClick={() => void replay(items.map((i) => i.id))}
            >
              Replay all on this page
            </button>
          ) : null}
          {/* The dead-letter queue is every tenant's: purging it takes a platform admin key. */}
          {can(caller, 'admin') && caller?.keyTenant === '*' ? (
            <button
              type="button"
              class="button danger"
              disabled={items.length === 0}
              onClick={() => void purge()}
            >
              Purge
            </button>
          ) : null}
        </div>
      </div>
      <ProblemBox error={page.error} title="Dead letters could not be listed" />
      {page.loading && !page.data ? <Loading /> : null}
      {page.data ? (
        <div class="table-wrap">
          <table class="data" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">
                  Dead letter
                </th>
                <th scope="col" role="columnheader">
                  Reason
                </th>
                <th scope="col" role="columnheader">
                  Execution
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Deliveries
                </th>
                <th scope="col" role="columnheader">
                  At
                </th>
                <th scope="col" role="columnheader">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((letter) => (
                <tr role="row" key={letter.id} data-dead-letter={letter.id}>
                  <td role="cell" data-label="Dead letter">
                    <CopyId id={letter.id} short />
                    <details class="payload">
                      <summary class="small">message</summary>
                      <JsonView value={payloadOf(letter)} label={`message of ${letter.id}`} />
                    </details>
                  </td>
                  <td role="cell" data-label="Reason">
                    <code>{letter.reason}</code>
                    {letter.kind ? <span class="muted"> ({letter.kind})</span> : null}
                    {letter.lastError ? (
                      <div class="error-text small">{letter.lastError}</div>
                    ) : null}
                  </td>
                  <td role="cell" data-label="Execution">
                    {letter.executionId && letter.reason === 'unknown_execution' ? (
                      // The message named an execution that does not exist: nothing to open.
                      <span title="no such execution">
                        <CopyId id={letter.executionId} short />
                      </span>
                    ) : letter.executionId ? (
                      <CopyId
                        id={letter.executionId}
                        href={`/executions/${seg(letter.executionId)}`}
                        short
                      />
                    ) : (
                      '—'
                    )}
                  </td>
                  <td role="cell" data-label="Deliveries" class="wide-only num">
                    {letter.deliveryCount}
                  </td>
                  <td role="cell" data-label="At">
                    <Time iso={letter.at} />
                  </td>
                  <td role="cell">
                    {can(caller, 'operator') ? (
                      <button
                        type="button"
                        class="button small"
                        disabled={busy || letter.reason === 'malformed'}
                        title={
                          letter.reason === 'malformed'
                            ? 'A malformed message would only be dead-lettered again'
                            : undefined
                        }
                        aria-label={`Replay dead letter ${letter.id}`}
                        onClick={() => void replay([letter.id])}
                      >
                        Replay
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? (
            <p class="empty">No dead letter. Every message was handled.</p>
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
