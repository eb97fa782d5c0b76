import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, seg } from '../api/client';
import {
  EXECUTION_STATUSES,
  type BulkOperation,
  type ExecutionStatus,
  type ExecutionSummary,
  type Page,
} from '../api/types';
import { CopyId } from '../components/copy-id';
import { notify } from '../components/notice';
import { Pager } from '../components/pager';
import { Loading, ProblemBox } from '../components/problem-box';
import { StatusBadge } from '../components/status-badge';
import { Time } from '../components/time';
import { formatDuration } from '../format';
import { setQuery, useLocation } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

const WINDOWS: ReadonlyArray<readonly [string, string, number | null]> = [
  ['', 'Any time', null],
  ['15m', 'Last 15 minutes', 15 * 60_000],
  ['1h', 'Last hour', 3_600_000],
  ['6h', 'Last 6 hours', 6 * 3_600_000],
  ['24h', 'Last 24 hours', 86_400_000],
  ['7d', 'Last 7 days', 7 * 86_400_000],
  ['custom', 'Custom range', null],
];

interface Filter {
  status: ExecutionStatus[];
  flowId: string;
  window: string;
  from: string;
  to: string;
}

function filterOf(query: URLSearchParams): Filter {
  return {
    status: (query.get('status') ?? '')
      .split(',')
      .filter((s): s is ExecutionStatus => (EXECUTION_STATUSES as readonly string[]).includes(s)),
    flowId: query.get('flowId') ?? '',
    window: query.get('window') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
  };
}

/** The time bounds of a filter, as the API takes them (ISO 8601). */
function bounds(filter: Filter): { from?: string; to?: string } {
  const span = WINDOWS.find(([key]) => key === filter.window)?.[2];
  if (span) return { from: new Date(Date.now() - span).toISOString() };
  if (filter.window !== 'custom') return {};
  const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const from = iso(filter.from);
  const to = iso(filter.to);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** The `GET /v1/executions` query of the page at `query` (also prefetched at boot). */
export function listQuery(query: URLSearchParams) {
  const filter = filterOf(query);
  return {
    status: filter.status.join(','),
    flowId: filter.flowId,
    ...bounds(filter),
    limit: 50,
    cursor: query.get('cursor'),
  };
}

/**
 * Executions, newest first: filters (status, flow, time window) kept in the URL, keyset pages,
 * auto-refresh on the first page, and bulk cancel/retry of the selection or of the whole filter.
 */
export function ExecutionsPage() {
  useTitle('Executions');
  const { query } = useLocation();
  const filter = filterOf(query);
  const cursor = query.get('cursor');
  const [autoRefresh, setAutoRefresh] = useState(true);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const key = query.toString();
  const page = useResource(
    () => api.get<Page<ExecutionSummary>>('/v1/executions', listQuery(query)),
    [key],
    { refreshMs: autoRefresh && !cursor ? 5000 : null },
  );
  useEffect(() => setSelected(new Set()), [key]);

  const items = page.data?.items ?? [];
  // Only rows on screen count: an execution that left the list (cancelled out of a `waiting`
  // filter) must not be acted on by the next bulk click without a visible tick.
  const shown = new Set(items.map((i) => i.executionId));
  const selection: ReadonlySet<string> = new Set([...selected].filter((id) => shown.has(id)));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const allOnPage = items.length > 0 && items.every((i) => selection.has(i.executionId));

  return (
    <section aria-labelledby="executions-title">
      <div class="page-head">
        <h1 id="executions-title">Executions</h1>
        <label class="inline-check">
          <input
            type="checkbox"
            checked={autoRefresh}
            onChange={(e) => setAutoRefresh(e.currentTarget.checked)}
          />
          Auto-refresh (5 s)
        </label>
      </div>
      <Filters filter={filter} />
      <BulkBar
        filter={filter}
        selected={selection}
        stale={page.error != null}
        onDone={() => {
          setSelected(new Set());
          page.reload();
        }}
      />
      <ProblemBox error={page.error} title="Executions could not be listed" />
      {page.error && page.data ? (
        <p class="muted small" role="status">
          The rows below are from the last successful read; they may be out of date.
        </p>
      ) : null}
      {page.loading && !page.data ? <Loading /> : null}
      {page.data ? (
        <div class="table-wrap">
          <table class="data" role="table">
            <caption class="visually-hidden">Executions, newest first</caption>
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader" class="check">
                  <input
                    type="checkbox"
                    aria-label="Select every execution on this page"
                    checked={allOnPage}
                    onChange={() =>
                      setSelected(allOnPage ? new Set() : new Set(items.map((i) => i.executionId)))
                    }
                  />
                </th>
                <th scope="col" role="columnheader">
                  Execution
                </th>
                <th scope="col" role="columnheader">
                  Status
                </th>
                <th scope="col" role="columnheader">
                  Flow
                </th>
                <th scope="col" role="columnheader">
                  Created
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Duration
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Detail
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((item) => (
                <tr
                  role="row"
                  key={item.executionId}
                  class={selection.has(item.executionId) ? 'selected' : ''}
                >
                  <td role="cell" class="check">
                    <input
                      type="checkbox"
                      aria-label={`Select ${item.executionId}`}
                      checked={selection.has(item.executionId)}
                      onChange={() => toggle(item.executionId)}
                    />
                  </td>
                  <td role="cell" data-label="Execution">
                    <CopyId
                      id={item.executionId}
                      href={`/executions/${seg(item.executionId)}`}
                      short
                    />
                  </td>
                  <td role="cell" data-label="Status">
                    <StatusBadge status={item.status} />
                  </td>
                  <td role="cell" data-label="Flow" class="flow-cell">
                    {item.flowId ? (
                      <a
                        href={`/flows/${seg(item.flowId)}${item.flowVersion ? `?version=${seg(item.flowVersion)}` : ''}`}
                        title={`${item.flowId}${item.flowVersion ? `@${item.flowVersion}` : ''}`}
                      >
                        {item.flowId}
                        {item.flowVersion ? <span class="muted">@{item.flowVersion}</span> : null}
                      </a>
                    ) : (
                      <span class="muted">inline</span>
                    )}
                  </td>
                  <td role="cell" data-label="Created">
                    <Time iso={item.createdAt} />
                  </td>
                  <td role="cell" data-label="Duration" class="wide-only num">
                    {item.endedAt
                      ? formatDuration(Date.parse(item.endedAt) - Date.parse(item.createdAt))
                      : '—'}
                  </td>
                  <td role="cell" data-label="Detail" class="wide-only detail">
                    {item.error ? (
                      <span class="error-text" title={item.error.message}>
                        {item.error.nodeId ? `${item.error.nodeId}: ` : ''}
                        {item.error.message}
                      </span>
                    ) : item.waiting ? (
                      <span>
                        waits at {item.waiting.nodeId} for <code>{item.waiting.eventType}</code>
                      </span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? <p class="empty">No execution matches these filters.</p> : null}
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

function Filters({ filter }: { filter: Filter }) {
  const [flowId, setFlowId] = useState(filter.flowId);
  useEffect(() => setFlowId(filter.flowId), [filter.flowId]);
  const toggleStatus = (status: ExecutionStatus) => {
    const next = filter.status.includes(status)
      ? filter.status.filter((s) => s !== status)
      : [...filter.status, status];
    setQuery({ status: next.join(','), cursor: null });
  };
  return (
    <form
      class="filters"
      role="search"
      aria-label="Filter executions"
      onSubmit={(e) => {
        e.preventDefault();
        setQuery({ flowId: flowId.trim(), cursor: null });
      }}
    >
      <fieldset class="chips">
        <legend>Status</legend>
        {EXECUTION_STATUSES.map((status) => (
          <label key={status} class={`chip${filter.status.includes(status) ? ' on' : ''}`}>
            <input
              type="checkbox"
              checked={filter.status.includes(status)}
              onChange={() => toggleStatus(status)}
            />
            {status}
          </label>
        ))}
      </fieldset>
      <div class="filter-row">
        <label>
          <span>Flow id</span>
          <input
            data-filter
            type="search"
            name="flowId"
            placeholder="any flow"
            value={flowId}
            onInput={(e) => setFlowId(e.currentTarget.value)}
            onBlur={() =>
              flowId.trim() !== filter.flowId && setQuery({ flowId: flowId.trim(), cursor: null })
            }
          />
        </label>
        <label>
          <span>Created</span>
          <select
            value={filter.window}
            onChange={(e) => setQuery({ window: e.currentTarget.value, cursor: null })}
          >
            {WINDOWS.map(([key, label]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {filter.window === 'custom' ? (
          <>
            <label>
              <span>From</span>
              <input
                type="datetime-local"
                value={filter.from}
                onChange={(e) => setQuery({ from: e.currentTarget.value, cursor: null })}
              />
            </label>
            <label>
              <span>To</span>
              <input
                type="datetime-local"
                value={filter.to}
                onChange={(e) => setQuery({ to: e.currentTarget.value, cursor: null })}
              />
            </label>
          </>
        ) : null}
        <button type="submit" class="button">
          Apply
        </button>
        {filter.status.length || filter.flowId || filter.window ? (
          <button
            type="button"
            class="button ghost"
            onClick={() =>
              setQuery({
                status: null,
                flowId: null,
                window: null,
                from: null,
                to: null,
                cursor: null,
              })
            }
          >
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}

function BulkBar(props: {
  filter: Filter;
  selected: ReadonlySet<string>;
  /** The list could not be read just now: nothing is offered against rows that may be gone. */
  stale: boolean;
  onDone: () => void;
}) {
  const caller = useCaller();
  // Until its first read, what the page knows of an operation it just started.
  const [operation, setOperation] = useState<Pick<
    BulkOperation,
    'id' | 'action' | 'status' | 'matched' | 'done' | 'failed'
  > | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [polls, setPolls] = useState(0);

  useEffect(() => {
    if (!operation || operation.status === 'completed') return;
    // A failed read (429, 503, a network blip) is shown and the next poll goes on, backing off:
    // the operation runs on the server whatever the page does.
    const timer = window.setTimeout(
      () => {
        api.get<BulkOperation>(`/v1/bulk-operations/${seg(operation.id)}`).then(
          (next) => {
            setError(null);
            setOperation(next);
            if (next.status === 'completed') {
              notify(`Bulk ${next.action}: ${next.done} done, ${next.failed} failed`);
              props.onDone();
            }
          },
          (e: unknown) => {
            setError(e);
            setPolls((n) => n + 1);
          },
        );
      },
      error ? Math.min(10_000, 700 * 2 ** Math.min(polls, 4)) : 700,
    );
    return () => window.clearTimeout(timer);
  }, [operation, polls]);

  if (!can(caller, 'operator')) return null;
  const run = async (action: 'cancel' | 'retry', scope: 'selection' | 'filter') => {
    const f = props.filter;
    const filter =
      scope === 'selection'
        ? { ids: [...props.selected] }
        : {
            ...(f.status.length ? { status: f.status } : {}),
            ...(f.flowId ? { flowId: f.flowId } : {}),
            ...bounds(f),
          };
    const what =
      scope === 'selection'
        ? `${props.selected.size} selected executions`
        : 'every execution matching the filter';
    if (!window.confirm(`${action === 'cancel' ? 'Cancel' : 'Retry'} ${what}?`)) return;
    setError(null);
    try {
      const { id } = await api.post<{ id: string }>('/v1/bulk-operations', { action, filter });
      setOperation({ id, action, status: 'pending', matched: 0, done: 0, failed: 0 });
    } catch (e) {
      setError(e);
      notify(`Bulk ${action} refused: ${messageOf(e)}`, 'error');
    }
  };
  const n = props.selected.size;
  return (
    <div class="bulk-bar" role="region" aria-label="Bulk operations">
      <span class="muted small">{n > 0 ? `${n} selected` : 'Bulk:'}</span>
      <button
        type="button"
        class="button"
        disabled={n === 0 || props.stale}
        onClick={() => void run('cancel', 'selection')}
      >
        Cancel selected
      </button>
      <button
        type="button"
        class="button"
        disabled={n === 0 || props.stale}
        onClick={() => void run('retry', 'selection')}
      >
        Retry selected
      </button>
      <button
        type="button"
        class="button ghost"
        disabled={props.stale}
        onClick={() => void run('cancel', 'filter')}
      >
        Cancel all matching
      </button>
      <button
        type="button"
        class="button ghost"
        disabled={props.stale}
        onClick={() => void run('retry', 'filter')}
      >
        Retry all matching
      </button>
      {operation ? (
        <span class="small" role="status">
          {operation.action} {operation.status}: {operation.done}/{operation.matched} done
          {operation.failed ? `, ${operation.failed} failed` : ''}
        </span>
      ) : null}
      <ProblemBox error={error} title="Bulk operation" />
    </div>
  );
}
