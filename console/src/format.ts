import type { TimeMode } from './prefs';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A time as the header's switch asks: UTC, the browser's local time, or relative to now. */
export function formatTime(iso: string, mode: TimeMode, now = Date.now()): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const d = new Date(ms);
  if (mode === 'relative') return relative(ms - now);
  if (mode === 'utc')
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${offsetOf(d)}`;
}

/** The browser's UTC offset at that moment (`+01:00`): a local time is read with its zone. */
function offsetOf(d: Date): string {
  const minutes = -d.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function relative(deltaMs: number): string {
  const future = deltaMs > 0;
  const abs = Math.abs(deltaMs);
  const text =
    abs < 5_000
      ? 'now'
      : abs < 60_000
        ? `${Math.round(abs / 1000)} s`
        : abs < 3_600_000
          ? `${Math.round(abs / 60_000)} min`
          : abs < 86_400_000
            ? `${Math.round(abs / 3_600_000)} h`
            : `${Math.round(abs / 86_400_000)} d`;
  if (text === 'now') return text;
  return future ? `in ${text}` : `${text} ago`;
}

/** 12 ms, 3.4 s, 2 min 5 s. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return minutes < 60
    ? `${minutes} min ${seconds} s`
    : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Shortens a long id for narrow cells; the full id stays in the title and the copy button. */
export function shortId(id: string, keep = 12): string {
  return id.length > keep + 1 ? `${id.slice(0, keep)}…` : id;
}
