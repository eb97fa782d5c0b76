import { api, ApiError } from '../api/client';
import type { Approval, DeadLetter, ExecutionStats, Page, QueueStats, Worker } from '../api/types';
import { ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { setQuery, useLocation } from '../router';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';
import { ExecutionsChart } from './overview-chart';

const WINDOWS = ['15m', '1h', '6h', '24h'] as const;

/**
 * The overview: executions started / completed / failed per minute, queue depth, dead letters,
 * waiting approvals and live workers — each figure a link to its list.
 */
export default function OverviewPage() {
  useTitle('Overview');
  const { query } = useLocation();
  const span = (WINDOWS as readonly string[]).includes(query.get('window') ?? '')
    ? (query.get('window') as string)
    : '1h';
  const refresh = { refreshMs: 10_000 };
  const stats = useResource(
    () => api.get<ExecutionStats>('/v1/stats/executions', { window: span }),
    [span],
    refresh,
  );
  const queue = useResource(() => api.get<QueueStats>('/v1/stats/queue'), [], refresh);
  const approvals = useResource(
    () => api.get<Page<Approval>>('/v1/approvals', { limit: 100 }),
    [],
    refresh,
  );
  const workers = useResource(() => api.getAll<Worker>('/v1/workers'), [], refresh);
  // Counted from the list, which holds this tenant's only (the queue's count is every tenant's).
  const dead = useResource(
    () => api.get<Page<DeadLetter>>('/v1/dead-letters', { limit: 100 }),
    [],
    refresh,
  );

  const queueHidden = queue.error instanceof ApiError && queue.error.status === 403;
  const sum = (key: 'started' | 'completed' | 'failed') =>
    stats.data ? String(stats.data.buckets.reduce((n, b) => n + b[key], 0)) : '…';
  const pending = approvals.data ? approvals.data.items.filter((a) => !a.decided).length : null;
  const figures: Array<{ label: string; value: string; href: string; tone?: string }> = [
    { label: `Started (${span})`, value: sum('started'), href: `/executions?window=${span}` },
    {
      label: `Completed (${span})`,
      value: sum('completed'),
      href: `/executions?status=completed&window=${span}`,
      tone: 'ok',
    },
    {
      label: `Failed (${span})`,
      value: sum('failed'),
      href: `/executions?status=error&window=${span}`,
      // Red only when something failed: a zero in red reads as an alarm.
      ...(stats.data?.buckets.some((b) => b.failed > 0) ? { tone: 'bad' } : {}),
    },
    {
      label: 'Queue depth',
      // The queue is shared by every tenant: its depth is for platform keys only.
      value: queue.data
        ? String(queue.data.ready + queue.data.inFlight + queue.data.delayed)
        : queueHidden
          ? '—'
          : '…',
      href: '/executions?status=queued,running',
    },
    {
      label: 'Dead letters',
      value: dead.data ? `${dead.data.items.length}${dead.data.nextCursor ? '+' : ''}` : '…',
      href: '/dead-letters',
      ...(dead.data?.items.length ? { tone: 'bad' } : {}),
    },
    {
      label: 'Waiting approvals',
      value: pending === null ? '…' : `${pending}${approvals.data?.nextCursor ? '+' : ''}`,
      href: '/approvals',
    },
    {
      label: 'Live workers',
      value: workers.data ? String(workers.data.items.length) : '…',
      href: '/workers',
    },
  ];

  return (
    <section aria-labelledby="overview-title">
      <div class="page-head">
        <h1 id="overview-title">Overview</h1>
        <label class="inline-select">
          <span>Window</span>
          <select value={span} onChange={(e) => setQuery({ window: e.currentTarget.value })}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                last {w}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ul class="figures">
        {figures.map((f) => (
          <li key={f.label}>
            <a class={`figure${f.tone ? ` tone-${f.tone}` : ''}`} href={f.href}>
              <span class="figure-value">{f.value}</span>
              <span class="figure-label">{f.label}</span>
            </a>
          </li>
        ))}
      </ul>
      <ProblemBox
        error={
          stats.error ??
          (queueHidden ? null : queue.error) ??
          approvals.error ??
          workers.error ??
          dead.error
        }
        title="Some figures could not be read"
      />
      <section class="card" aria-labelledby="chart-title">
        <h2 id="chart-title">Executions per minute</h2>
        <ul class="chart-legend" aria-hidden="true">
          <li class="started">Started</li>
          <li class="completed">Completed</li>
          <li class="failed">Failed</li>
        </ul>
        {stats.data ? <ExecutionsChart stats={stats.data} /> : <div class="chart-placeholder" />}
        {stats.data ? <MinuteTable stats={stats.data} /> : null}
      </section>
      {queue.data?.oldestReadyAgeMs ? (
        <p class="muted small">
          The oldest ready message has waited {Math.round(queue.data.oldestReadyAgeMs / 1000)} s.
        </p>
      ) : null}
    </section>
  );
}

function MinuteTable({ stats }: { stats: ExecutionStats }) {
  const rows = stats.buckets.filter((b) => b.started || b.completed || b.failed).reverse();
  return (
    <details class="minutes">
      <summary>
        The numbers ({rows.length} busy {rows.length === 1 ? 'minute' : 'minutes'})
      </summary>
      <div class="table-wrap">
        <table class="data" role="table">
          <thead role="rowgroup">
            <tr role="row">
              <th scope="col" role="columnheader">
                Minute
              </th>
              <th scope="col" role="columnheader" class="num">
                Started
              </th>
              <th scope="col" role="columnheader" class="num">
                Completed
              </th>
              <th scope="col" role="columnheader" class="num">
                Failed
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {rows.map((b) => (
              <tr role="row" key={b.at}>
                <td role="cell" data-label="Minute">
                  <Time iso={b.at} />
                </td>
                <td role="cell" data-label="Started" class="num">
                  {b.started}
                </td>
                <td role="cell" data-label="Completed" class="num">
                  {b.completed}
                </td>
                <td role="cell" data-label="Failed" class="num">
                  {b.failed}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
