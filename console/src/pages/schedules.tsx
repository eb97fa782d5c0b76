import { api, messageOf, seg } from '../api/client';
import type { Page, Schedule } from '../api/types';
import { notify } from '../components/notice';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { setQuery, useLocation } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';
import { ScheduleActions } from './schedule-editor/schedule-actions';
import { ScheduleEditor } from './schedule-editor/schedule-editor';

/** Schedules: the list, create/edit with the next five fire times, enable/disable, fire now. */
export default function SchedulesPage({ params }: { params: Record<string, string> }) {
  const { path } = useLocation();
  const editing = path === '/schedules/new' ? 'new' : (params.id ?? null);
  useTitle(editing === 'new' ? 'New schedule' : editing ? `Schedule ${editing}` : 'Schedules');
  // Keyed by the schedule: another schedule's page starts afresh, never with this one's form.
  return editing ? (
    <ScheduleEditor key={editing} id={editing === 'new' ? null : editing} />
  ) : (
    <ScheduleList />
  );
}

function ScheduleList() {
  const caller = useCaller();
  const { query } = useLocation();
  const cursor = query.get('cursor');
  const page = useResource(
    () => api.get<Page<Schedule>>('/v1/schedules', { cursor, limit: 50 }),
    [cursor],
    {
      refreshMs: 15_000,
    },
  );
  const items = page.data?.items ?? [];
  const toggle = async (schedule: Schedule) => {
    try {
      await api.patch(`/v1/schedules/${seg(schedule.id)}`, { enabled: !schedule.enabled });
      notify(`${schedule.enabled ? 'Disabled' : 'Enabled'} ${schedule.flowId} (${schedule.cron})`);
      page.reload();
    } catch (e) {
      notify(messageOf(e), 'error');
    }
  };
  return (
    <section aria-labelledby="schedules-title">
      <div class="page-head">
        <h1 id="schedules-title">Schedules</h1>
        {can(caller, 'admin') ? (
          <a class="button primary" href="/schedules/new">
            New schedule
          </a>
        ) : null}
      </div>
      <ProblemBox error={page.error} title="Schedules could not be listed" />
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
                  Cron
                </th>
                <th scope="col" role="columnheader">
                  Enabled
                </th>
                <th scope="col" role="columnheader">
                  Next run
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Last run
                </th>
                <th scope="col" role="columnheader">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((s) => (
                <tr role="row" key={s.id}>
                  <td role="cell" data-label="Flow">
                    <a
                      href={`/schedules/${seg(s.id)}`}
                      aria-label={`Edit the schedule of ${s.flowId}, ${s.cron}`}
                    >
                      {s.flowId}
                      {s.version ? <span class="muted">@{s.version}</span> : null}
                    </a>
                  </td>
                  <td role="cell" data-label="Cron">
                    <code>{s.cron}</code> <span class="muted small">{s.timezone}</span>
                  </td>
                  <td role="cell" data-label="Enabled">
                    {can(caller, 'admin') ? (
                      <label class="switch">
                        <input
                          type="checkbox"
                          checked={s.enabled}
                          onChange={() => void toggle(s)}
                        />
                        <span>{s.enabled ? 'on' : 'off'}</span>
                        <span class="visually-hidden">
                          Enabled: {s.flowId} {s.cron}
                        </span>
                      </label>
                    ) : s.enabled ? (
                      'on'
                    ) : (
                      'off'
                    )}
                  </td>
                  <td role="cell" data-label="Next run">
                    <Time iso={s.nextRunAt} />
                  </td>
                  <td role="cell" data-label="Last run" class="wide-only">
                    <Time iso={s.lastRunAt} />
                    {s.lastExecutionId ? (
                      <>
                        {' '}
                        <a href={`/executions/${seg(s.lastExecutionId)}`} class="small">
                          run
                        </a>
                      </>
                    ) : null}
                    {s.lastError ? <div class="error-text small">{s.lastError}</div> : null}
                  </td>
                  <td role="cell" class="row-actions">
                    <ScheduleActions schedule={s} onFired={page.reload} onDeleted={page.reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? <p class="empty">No schedule yet.</p> : null}
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
