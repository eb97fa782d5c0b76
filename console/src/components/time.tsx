import { formatTime } from '../format';
import { usePrefs } from '../prefs';

/** A time in the header's chosen form; the exact UTC time is in `datetime` and the tooltip. */
export function Time({ iso }: { iso: string | null | undefined }) {
  const { time } = usePrefs();
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso, time)}
    </time>
  );
}
