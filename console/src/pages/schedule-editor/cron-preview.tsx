import { Loading } from '../../components/problem-box';
import { Time } from '../../components/time';

/** The next five fire times of the cron as typed, or why there are none. */
export function CronPreview({ times, error }: { times: string[] | null; error: unknown }) {
  return (
    <aside class="card split-side" aria-labelledby="preview-title">
      <h2 id="preview-title">Next five fire times</h2>
      {times ? (
        <ol class="preview-times" data-testid="cron-preview">
          {times.map((t) => (
            <li key={t}>
              <Time iso={t} />
            </li>
          ))}
        </ol>
      ) : error ? (
        <p class="muted">No preview: the cron or time zone is not valid.</p>
      ) : (
        <Loading label="Previewing" />
      )}
    </aside>
  );
}
