import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../api/client';
import type { ExecutionView, FlowSummary, Page, Schedule } from '../api/types';
import { CopyId } from '../components/copy-id';
import { describedBy, Field } from '../components/field';
import { notify } from '../components/notice';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { navigate, setQuery, useLocation } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

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

interface Draft {
  flowId: string;
  version: string;
  cron: string;
  timezone: string;
  input: string;
  overlap: 'allow' | 'skip';
  enabled: boolean;
}

const EMPTY: Draft = {
  flowId: '',
  version: '',
  cron: '*/5 * * * *',
  timezone: 'UTC',
  input: '{}',
  overlap: 'allow',
  enabled: true,
};

/**
 * Fire now (operators) and Delete (admins, once confirmed): a list row's and a schedule's own
 * page alike; each calls back once it is done.
 */
function ScheduleActions(props: {
  schedule: Schedule;
  onFired: () => void;
  onDeleted: () => void;
}) {
  const caller = useCaller();
  const { schedule } = props;
  const fire = async () => {
    try {
      const started = await api.post<ExecutionView>(`/v1/schedules/${seg(schedule.id)}/trigger`);
      notify(`Fired: ${started.executionId}`);
      props.onFired();
    } catch (e) {
      notify(messageOf(e), 'error');
    }
  };
  const remove = async () => {
    if (!window.confirm(`Delete the schedule of ${schedule.flowId} (${schedule.cron})?`)) return;
    try {
      await api.delete(`/v1/schedules/${seg(schedule.id)}`);
      props.onDeleted();
    } catch (e) {
      notify(messageOf(e), 'error');
    }
  };
  return (
    <>
      {can(caller, 'operator') ? (
        <button
          type="button"
          class="button small"
          onClick={() => void fire()}
          aria-label={`Fire now: ${schedule.flowId} (${schedule.cron})`}
        >
          Fire now
        </button>
      ) : null}
      {can(caller, 'admin') ? (
        <button
          type="button"
          class="button small ghost"
          onClick={() => void remove()}
          aria-label={`Delete the schedule of ${schedule.flowId}`}
        >
          Delete
        </button>
      ) : null}
    </>
  );
}

/** An existing schedule's runs and actions, above its form: what the list row shows. */
function ScheduleStatus({ schedule, reload }: { schedule: Schedule; reload: () => void }) {
  return (
    <div class="card schedule-status" aria-label="Runs">
      <dl class="facts facts-row">
        <dt>Next run</dt>
        <dd>{schedule.enabled ? <Time iso={schedule.nextRunAt} /> : 'off (disabled)'}</dd>
        <dt>Last run</dt>
        <dd>
          <Time iso={schedule.lastRunAt} />
          {schedule.lastExecutionId ? (
            <>
              {' '}
              <a href={`/executions/${seg(schedule.lastExecutionId)}`}>open the execution</a>
            </>
          ) : null}
          {schedule.lastError ? <div class="error-text small">{schedule.lastError}</div> : null}
        </dd>
      </dl>
      <div class="row-actions">
        <ScheduleActions
          schedule={schedule}
          onFired={reload}
          onDeleted={() => navigate('/schedules', { replace: true })}
        />
      </div>
    </div>
  );
}

function ScheduleEditor({ id }: { id: string | null }) {
  const caller = useCaller();
  const [draft, setDraft] = useState<Draft | null>(id ? null : EMPTY);
  const [stored, setStored] = useState<Schedule | null>(null);
  const [loads, setLoads] = useState(0);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Partial<Record<keyof Draft | 'other', string>>>({});
  const [busy, setBusy] = useState(false);
  const flows = useResource(() => api.get<Page<FlowSummary>>('/v1/flows', { limit: 200 }), []);

  useEffect(() => {
    if (!id) return;
    api.get<Schedule>(`/v1/schedules/${seg(id)}`).then(
      (s) => {
        setStored(s);
        // A reload after firing refreshes the runs, never an edit under way.
        if (loads === 0)
          setDraft({
            flowId: s.flowId,
            version: s.version ?? '',
            cron: s.cron,
            timezone: s.timezone,
            input: JSON.stringify(s.input, null, 2),
            overlap: s.overlap,
            enabled: s.enabled,
          });
      },
      (error: unknown) => {
        // A refresh that fails after a fire keeps the form (and any edit under way).
        if (loads === 0) setLoadError(error);
        else notify(messageOf(error), 'error');
      },
    );
  }, [id, loads]);

  const preview = usePreview(draft?.cron ?? '', draft?.timezone ?? 'UTC');
  if (loadError) return <ProblemBox error={loadError} title={`Schedule ${id ?? ''}`} />;
  if (!draft) return <Loading />;
  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes });

  const save = async (event: Event) => {
    event.preventDefault();
    let input: unknown;
    try {
      input = JSON.parse(draft.input || '{}');
    } catch (e) {
      setErrors({ input: `Not JSON: ${messageOf(e)}` });
      return;
    }
    setBusy(true);
    setErrors({});
    const body = {
      flowId: draft.flowId.trim(),
      version: draft.version.trim() || null,
      cron: draft.cron.trim(),
      timezone: draft.timezone.trim() || 'UTC',
      input,
      overlap: draft.overlap,
      enabled: draft.enabled,
    };
    try {
      const saved = id
        ? await api.patch<Schedule>(`/v1/schedules/${seg(id)}`, body)
        : await api.post<Schedule>('/v1/schedules', body);
      notify(id ? 'Schedule saved' : 'Schedule created');
      setStored(saved); // the runs panel shows what was saved (next run, enabled)
      navigate(`/schedules/${seg(saved.id)}`, { replace: !id });
    } catch (e) {
      if (e instanceof ApiError) {
        const next: Partial<Record<keyof Draft | 'other', string>> = {};
        for (const name of ['flowId', 'version', 'cron', 'timezone', 'input', 'overlap'] as const) {
          const message = e.field(name);
          if (message) next[name] = message;
        }
        // Cron and time zone problems come back as a detail without a field path.
        if (!Object.keys(next).length && /cron|pattern/i.test(e.detail)) next.cron = e.detail;
        else if (!Object.keys(next).length && /time ?zone/i.test(e.detail))
          next.timezone = e.detail;
        else if (!Object.keys(next).length) next.other = e.detail;
        setErrors(next);
      } else setErrors({ other: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };

  const readOnly = !can(caller, 'admin');
  const previewError = preview.error instanceof ApiError ? preview.error : null;
  const previewTz = previewError?.field('timezone');
  const cronError =
    errors.cron ??
    (previewError && !previewTz ? (previewError.field('cron') ?? previewError.detail) : undefined);
  const tzError = errors.timezone ?? (previewTz ? `${previewError?.detail ?? ''}` : undefined);
  const zones = supportedZones();
  return (
    <section aria-labelledby="schedule-title">
      <p class="crumbs">
        <a href="/schedules">Schedules</a> /
      </p>
      <h1 id="schedule-title">{id ? 'Edit schedule' : 'New schedule'}</h1>
      {id ? (
        <p>
          <CopyId id={id} />
        </p>
      ) : null}
      {stored ? <ScheduleStatus schedule={stored} reload={() => setLoads((n) => n + 1)} /> : null}
      <div class="split">
        <form
          class="card form-grid split-main"
          onSubmit={(e) => void save(e)}
          aria-label="Schedule"
        >
          <Field id="sch-flow" label="Flow id" error={errors.flowId}>
            <input
              {...describedBy('sch-flow', errors.flowId)}
              list="sch-flows"
              required
              value={draft.flowId}
              readOnly={readOnly}
              onInput={(e) => set({ flowId: e.currentTarget.value })}
            />
            <datalist id="sch-flows">
              {(flows.data?.items ?? []).map((f) => (
                <option key={f.flowId} value={f.flowId} />
              ))}
            </datalist>
          </Field>
          <Field
            id="sch-version"
            label="Version (empty: the latest published)"
            error={errors.version}
          >
            <input
              {...describedBy('sch-version', errors.version)}
              value={draft.version}
              readOnly={readOnly}
              onInput={(e) => set({ version: e.currentTarget.value })}
            />
          </Field>
          <Field id="sch-cron" label="Cron (5 or 6 fields)" error={cronError}>
            <input
              {...describedBy('sch-cron', cronError)}
              class="mono"
              required
              value={draft.cron}
              readOnly={readOnly}
              onInput={(e) => set({ cron: e.currentTarget.value })}
            />
          </Field>
          <Field id="sch-tz" label="Time zone (IANA)" error={tzError}>
            <input
              {...describedBy('sch-tz', tzError)}
              list="sch-zones"
              value={draft.timezone}
              readOnly={readOnly}
              onInput={(e) => set({ timezone: e.currentTarget.value })}
            />
            <datalist id="sch-zones">
              {zones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </Field>
          <Field id="sch-input" label="Input (JSON object)" error={errors.input}>
            <textarea
              {...describedBy('sch-input', errors.input)}
              class="code"
              rows={5}
              spellcheck={false}
              value={draft.input}
              readOnly={readOnly}
              onInput={(e) => set({ input: e.currentTarget.value })}
            />
          </Field>
          <Field id="sch-overlap" label="When the last run has not settled">
            <select
              id="sch-overlap"
              value={draft.overlap}
              disabled={readOnly}
              onChange={(e) => set({ overlap: e.currentTarget.value as Draft['overlap'] })}
            >
              <option value="allow">start anyway (allow)</option>
              <option value="skip">skip the slot (skip)</option>
            </select>
          </Field>
          <label class="inline-check">
            <input
              type="checkbox"
              checked={draft.enabled}
              disabled={readOnly}
              onChange={(e) => set({ enabled: e.currentTarget.checked })}
            />
            Enabled
          </label>
          {errors.other ? (
            <p class="field-error" role="alert">
              {errors.other}
            </p>
          ) : null}
          {!readOnly ? (
            <div class="actions">
              <button type="submit" class="button primary" disabled={busy}>
                {id ? 'Save' : 'Create schedule'}
              </button>
              <a class="button ghost" href="/schedules">
                Back to the list
              </a>
            </div>
          ) : null}
        </form>
        <aside class="card split-side" aria-labelledby="preview-title">
          <h2 id="preview-title">Next five fire times</h2>
          {preview.times ? (
            <ol class="preview-times" data-testid="cron-preview">
              {preview.times.map((t) => (
                <li key={t}>
                  <Time iso={t} />
                </li>
              ))}
            </ol>
          ) : preview.error ? (
            <p class="muted">No preview: the cron or time zone is not valid.</p>
          ) : (
            <Loading label="Previewing" />
          )}
        </aside>
      </div>
    </section>
  );
}

/** `GET /v1/schedules/preview`, debounced while the cron is typed. */
function usePreview(cron: string, timezone: string) {
  const [state, setState] = useState<{ times: string[] | null; error: unknown }>({
    times: null,
    error: null,
  });
  useEffect(() => {
    if (!cron.trim()) {
      setState({ times: null, error: null });
      return;
    }
    let live = true;
    const timer = window.setTimeout(() => {
      api
        .get<{ times: string[] }>('/v1/schedules/preview', {
          cron: cron.trim(),
          timezone: timezone.trim() || 'UTC',
          count: 5,
        })
        .then(
          (r) => live && setState({ times: r.times, error: null }),
          (e: unknown) => live && setState({ times: null, error: e }),
        );
    }, 250);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [cron, timezone]);
  return state;
}

function supportedZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf ? ['UTC', ...intl.supportedValuesOf('timeZone')] : ['UTC'];
  } catch {
    return ['UTC'];
  }
}
