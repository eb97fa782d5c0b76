import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api/client';

/** `GET /v1/schedules/preview`, debounced while the cron is typed. */
export function useCronPreview(cron: string, timezone: string) {
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
