import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, seg, withQuery } from '../api/client';
import { TERMINAL, type ExecutionView } from '../api/types';

export type LiveState = 'loading' | 'live' | 'reconnecting' | 'ended' | 'idle';

/**
 * An execution kept current over SSE (docs/http-api.md §4): the view is read once, then — unless it is
 * already terminal — a single-use ticket opens `…/stream?ticket=`, and every `snapshot` and
 * `update` (the whole view) replaces it. A dropped stream is reopened with a NEW ticket and
 * `lastEventId` (tickets are single-use, so EventSource's own retry cannot be used); `end`
 * closes it. `follow()` starts following again (after a retry or an event); `follow(version)`
 * after an action a worker carries out later (a retry of an `error` execution): while the view
 * is still terminal at that version it is read again every half second (up to a minute), then
 * followed as usual — without it the page would stay on "final" until a reload.
 * The last event id belongs to one effect run: carried over to another execution (the page
 * moving from an execution to its replay), the server would skip every version below it.
 */
export function useLiveExecution(id: string) {
  const [view, setView] = useState<ExecutionView | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState<LiveState>('loading');
  const [generation, setGeneration] = useState<{ n: number; awaitAbove: number | null }>({
    n: 0,
    awaitAbove: null,
  });

  useEffect(() => {
    let closed = false;
    let source: EventSource | null = null;
    let timer = 0;
    let failures = 0;
    let lastEventId: string | null = null;

    const apply = (next: ExecutionView) => {
      if (!closed) setView(next);
    };
    const reconnectLater = (ms: number) => {
      if (closed) return;
      setLive('reconnecting');
      timer = window.setTimeout(() => void open(), ms);
    };
    const open = async () => {
      try {
        const { ticket } = await api.post<{ ticket: string }>(
          `/v1/executions/${seg(id)}/stream-tickets`,
        );
        if (closed) return;
        source = new EventSource(
          withQuery(`/v1/executions/${seg(id)}/stream`, {
            ticket,
            lastEventId,
          }),
        );
        const onView = (event: MessageEvent<string>) => {
          if (event.lastEventId) lastEventId = event.lastEventId;
          failures = 0;
          setLive('live');
          apply(JSON.parse(event.data) as ExecutionView);
        };
        source.addEventListener('snapshot', onView);
        source.addEventListener('update', onView);
        source.addEventListener('open', () => setLive('live'));
        source.addEventListener('end', () => {
          source?.close();
          setLive('ended');
          api.get<ExecutionView>(`/v1/executions/${seg(id)}`).then(apply, () => undefined);
        });
        source.addEventListener('shutdown', () => {
          source?.close();
          reconnectLater(2000);
        });
        source.onerror = () => {
          source?.close();
          failures += 1;
          reconnectLater(Math.min(10_000, 500 * 2 ** failures));
        };
      } catch (e) {
        if (e instanceof ApiError && (e.status === 404 || e.status === 401)) {
          setLive('idle');
          return;
        }
        failures += 1;
        reconnectLater(Math.min(10_000, 500 * 2 ** failures));
      }
    };

    const read = (polls: number) =>
      api.get<ExecutionView>(`/v1/executions/${seg(id)}`).then(
        (first) => {
          apply(first);
          setError(null);
          if (closed) return;
          const unchanged =
            generation.awaitAbove !== null && first.version <= generation.awaitAbove;
          if (TERMINAL.includes(first.status) && unchanged && polls < 120) {
            setLive('loading');
            timer = window.setTimeout(() => void read(polls + 1), 500);
          } else if (TERMINAL.includes(first.status)) setLive('ended');
          else void open();
        },
        (e: unknown) => {
          if (!closed) {
            setError(e);
            setLive('idle');
          }
        },
      );
    void read(0);
    return () => {
      closed = true;
      window.clearTimeout(timer);
      source?.close();
    };
  }, [id, generation]);

  // A lease renewed without a checkpoint, or one that lapsed (its worker crashed), sends no
  // update: read the view again once the lease shown runs out (a renewed one moves it on).
  const [leaseChecks, setLeaseChecks] = useState(0);
  const leaseEnds = view?.status === 'running' && view.lease ? view.lease.expiresAt : null;
  useEffect(() => {
    if (leaseEnds === null) return;
    let gone = false; // the page moved on (another execution, say its replay) meanwhile
    const timer = window.setTimeout(
      () => {
        api.get<ExecutionView>(`/v1/executions/${seg(id)}`).then(
          (next) => {
            if (gone || next.executionId !== id) return;
            setView((current) => (current && next.version < current.version ? current : next));
            setLeaseChecks((n) => n + 1);
          },
          () => {
            if (!gone) setLeaseChecks((n) => n + 1); // try again after the next wait
          },
        );
      },
      Math.max(5000, Date.parse(leaseEnds) - Date.now() + 1000),
    );
    return () => {
      gone = true;
      window.clearTimeout(timer);
    };
  }, [id, leaseEnds, leaseChecks]);

  const follow = useCallback(
    (changedFrom?: number) =>
      setGeneration((g) => ({ n: g.n + 1, awaitAbove: changedFrom ?? null })),
    [],
  );
  return { view, error, live, follow };
}
