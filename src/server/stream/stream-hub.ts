import { ID_SEPARATOR } from '../../store/control-store.js';
import type { ExecutionState } from '../../state/execution-state.js';
import type { Logger } from '../../util/logger.js';
import { ApiProblem } from '../problem.js';
import { CheckpointWatch } from './checkpoint-watch.js';
import { StreamSession, type SessionOptions } from './stream-session.js';

export interface StreamHubOptions {
  /** The execution of this tenant, or null when absent. */
  load(tenantId: string, executionId: string): Promise<ExecutionState | null>;
  /** The whole view of a state, as JSON text. */
  render(state: ExecutionState): Promise<string>;
  log: Logger;
  /** Poll pause after a change (default 100 ms); doubles while idle up to maxPollMs (1000). */
  minPollMs?: number;
  maxPollMs?: number;
  /** Keep-alive comment period (default 15 s). */
  keepAliveMs?: number;
  /** How long `close` waits for final events before dropping connections (default 3 s). */
  closeTimeoutMs?: number;
}

interface WatchEntry {
  watch: CheckpointWatch;
  viewers: number;
}

/**
 * Every open execution stream of one server. Streams of the same execution share one
 * {@link CheckpointWatch}, so N viewers cost one poll; the watch stops with its last viewer.
 * `close` (SIGTERM) ends every stream with a final `shutdown` event and refuses new ones.
 */
export class StreamHub {
  readonly #options: StreamHubOptions;
  readonly #watches = new Map<string, WatchEntry>();
  readonly #sessions = new Set<StreamSession>();
  #closed = false;

  constructor(options: StreamHubOptions) {
    this.#options = options;
  }

  /** Streams open now (for tests and metrics). */
  get openStreams(): number {
    return this.#sessions.size;
  }

  /** Executions polled now: one per execution with at least one viewer. */
  get watchedExecutions(): number {
    return this.#watches.size;
  }

  /**
   * A session for `state`'s execution, seeded with `state` (the caller's fresh read). Throws
   * `service_unavailable` once the server is shutting down, or when the view cannot be made.
   * `viewer.drop` closes the viewer's connection at once (a viewer that stopped reading holds
   * its socket, and a server's close, open otherwise); `viewer.allowed` is asked at every
   * keep-alive whether the viewer may still read (its key not revoked).
   */
  async open(
    state: ExecutionState,
    viewer: Pick<SessionOptions, 'drop' | 'allowed'> = {},
  ): Promise<StreamSession> {
    if (this.#closed) throw shuttingDown();
    const key = `${state.tenantId}${ID_SEPARATOR}${state.executionId}`;
    const entry = this.#acquire(key, state);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--entry.viewers > 0) return;
      entry.watch.stop();
      this.#watches.delete(key);
    };
    try {
      await entry.watch.offer(state);
      // `close` may have run while the view was made: it did not see this session.
      if (this.#closed) throw shuttingDown();
    } catch (error) {
      release();
      throw error;
    }
    entry.watch.start();
    const session = new StreamSession(entry.watch, {
      executionId: state.executionId,
      keepAliveMs: this.#options.keepAliveMs ?? 15_000,
      ...viewer,
      onEnd: () => {
        this.#sessions.delete(session);
        release();
      },
    });
    this.#sessions.add(session);
    return session;
  }

  /** Ends every stream with a `shutdown` event; drops those that do not finish in time. */
  async close(): Promise<void> {
    this.#closed = true;
    const sessions = [...this.#sessions];
    for (const session of sessions) session.shutdown();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.#options.closeTimeoutMs ?? 3000);
    });
    const finished = Promise.all(sessions.map((session) => session.done));
    if ((await Promise.race([finished, timedOut])) === 'timeout')
      for (const session of sessions) session.kill();
    clearTimeout(timer);
  }

  #acquire(key: string, state: ExecutionState): WatchEntry {
    let entry = this.#watches.get(key);
    if (!entry) {
      const { tenantId, executionId } = state;
      const watch = new CheckpointWatch(
        {
          load: () => this.#options.load(tenantId, executionId),
          render: (loaded) => this.#options.render(loaded),
        },
        {
          minPollMs: this.#options.minPollMs ?? 100,
          maxPollMs: this.#options.maxPollMs ?? 1000,
        },
        this.#options.log.child({ executionId, tenantId }),
      );
      entry = { watch, viewers: 0 };
      this.#watches.set(key, entry);
    }
    entry.viewers++;
    return entry;
  }
}

function shuttingDown(): ApiProblem {
  return new ApiProblem('service_unavailable', 'the server is shutting down; reconnect shortly');
}
