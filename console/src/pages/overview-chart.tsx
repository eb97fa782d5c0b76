import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ExecutionStats } from '../api/types';
import { usePrefs, effectiveTheme } from '../prefs';

const SERIES = [
  { key: 'started', label: 'Started', color: '--chart-started', dash: [] as number[] },
  { key: 'completed', label: 'Completed', color: '--chart-completed', dash: [6, 3] },
  { key: 'failed', label: 'Failed', color: '--chart-failed', dash: [2, 3] },
] as const;

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/**
 * Executions started / completed / failed per minute (uPlot). The series differ by dash as well
 * as colour; the canvas has a text alternative, and the numbers are in a table below it.
 */
export function ExecutionsChart({ stats }: { stats: ExecutionStats }) {
  const host = useRef<HTMLDivElement>(null);
  const prefs = usePrefs();
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const xs = stats.buckets.map((b) => Date.parse(b.at) / 1000);
    const data: uPlot.AlignedData = [xs, ...SERIES.map((s) => stats.buckets.map((b) => b[s.key]))];
    const axisColor = cssVar('--muted');
    const gridColor = cssVar('--border');
    const utc = prefs.time === 'utc';
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 220,
        ...(utc ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.15))] },
        },
        axes: [
          {
            stroke: axisColor,
            grid: { stroke: gridColor, width: 1 },
            ticks: { stroke: gridColor },
          },
          {
            stroke: axisColor,
            grid: { stroke: gridColor, width: 1 },
            ticks: { stroke: gridColor },
            size: 40,
          },
        ],
        series: [
          {},
          ...SERIES.map((s) => ({
            label: s.label,
            stroke: cssVar(s.color),
            width: 2,
            dash: [...s.dash],
            points: { show: false },
          })),
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(280, el.clientWidth), height: 220 }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [stats, prefs.theme, prefs.time, effectiveTheme()]);
  const totals = SERIES.map(
    (s) => `${stats.buckets.reduce((n, b) => n + b[s.key], 0)} ${s.label.toLowerCase()}`,
  );
  return (
    <figure class="chart">
      <div
        ref={host}
        role="img"
        aria-label={`Executions per minute over the last ${stats.window}: ${totals.join(', ')}`}
      />
      <figcaption class="muted small">
        Per minute, last {stats.window}
        {stats.truncated ? ` (the newest ${stats.counted} executions only)` : ''}
      </figcaption>
    </figure>
  );
}
