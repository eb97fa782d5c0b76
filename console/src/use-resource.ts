import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `load()` when `deps` change, and again every `refreshMs` while the tab is visible
 * (auto-refresh). A late answer for old deps is dropped; the last data stays on screen while
 * a refresh is under way (no flicker), and a failed refresh keeps it too.
 */
export function useResource<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
  options: { refreshMs?: number | null } = {},
): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback((keep: boolean) => {
    const mine = ++generation.current;
    setState((s) => ({ data: keep ? s.data : undefined, error: undefined, loading: true }));
    loadRef.current().then(
      (data) => {
        if (mine === generation.current) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (mine === generation.current)
          setState((s) => ({ data: keep ? s.data : undefined, error, loading: false }));
      },
    );
  }, []);

  useEffect(() => run(false), deps);

  const refreshMs = options.refreshMs ?? null;
  useEffect(() => {
    if (!refreshMs) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') run(true);
    }, refreshMs);
    return () => window.clearInterval(timer);
  }, [refreshMs, run]);

  const reload = useCallback(() => run(true), [run]);
  return { ...state, reload };
}
