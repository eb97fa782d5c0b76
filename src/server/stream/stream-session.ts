import type { SSEStreamingApi } from 'hono/streaming';
import { isTerminal } from '../../state/execution-state.js';
import { apiStatus } from '../execution-status.js';
import type { Checkpoint, CheckpointWatch } from './checkpoint-watch.js';

/** Why a session stopped early: the viewer left, or the server is shutting down. */
export const SESSION_STOP = { clientGone: 'client_gone', shutdown: 'server_shutdown' } as const;

/** The reconnection delay (ms) a `shutdown` event asks an EventSource to wait. */
const RECONNECT_AFTER_SHUTDOWN_MS = 2000;

export interface SessionOptions {
  executionId: string;
  /** A comment line is written this often (ms) so proxies keep an idle stream open. */
  keepAliveMs: number;
  /** Called once when the session ends (the hub forgets it and releases its watch). */
  onEnd: () => void;
  /** Closes the viewer's connection without another write (absent: only the stream ends). */
  drop?: () => void;
  /** Asked at every keep-alive: false (the viewer's key was revoked) drops the viewer. */
  allowed?: () => Promise<boolean>;
}

/**
 * One viewer's stream of one execution (docs/http-api.md §4): `snapshot` (the whole view), an `update`
 * (the whole view again) for each newer version, `end` once the execution is terminal. A
 * resumed viewer (`Last-Event-ID` = the version it has) gets an `update` only when the
 * execution moved past it. Event ids are the state versions; `end` and `shutdown` carry none,
 * so a reconnect resumes from the last view received.
 */
export class StreamSession {
  readonly #watch: CheckpointWatch;
  readonly #options: SessionOptions;
  readonly #stop = new AbortController();
  readonly #done: Promise<void>;
  #finish: () => void = () => undefined;
  #sse: SSEStreamingApi | null = null;
  #ended = false;

  constructor(watch: CheckpointWatch, options: SessionOptions) {
    this.#watch = watch;
    this.#options = options;
    this.#done = new Promise((resolve) => (this.#finish = resolve));
  }

  /** Settles when `run` has returned (its last event written). */
  get done(): Promise<void> {
    return this.#done;
  }

  /** Ends the session with a `shutdown` event (the server is stopping). */
  shutdown(): void {
    this.#stop.abort(SESSION_STOP.shutdown);
  }

  /**
   * Drops the connection without another write (a viewer that stopped reading): its unsent
   * data would otherwise keep the socket, and the server's close, waiting for ever.
   */
  kill(): void {
    this.#stop.abort(SESSION_STOP.shutdown);
    this.#sse?.abort();
    this.#options.drop?.();
  }

  /** Ends a session that will never `run` (its request failed after it was opened). */
  abandon(): void {
    this.#stop.abort(SESSION_STOP.clientGone);
    this.#close();
  }

  #close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#options.onEnd();
    this.#finish();
  }

  /** Writes the stream until the execution ends, the viewer leaves or the server stops. */
  async run(sse: SSEStreamingApi, resumeFrom: number | null, client: AbortSignal): Promise<void> {
    this.#sse = sse;
    const leave = () => this.#stop.abort(SESSION_STOP.clientGone);
    if (client.aborted) leave();
    client.addEventListener('abort', leave, { once: true });
    sse.onAbort(leave);
    // A keep-alive still unsent two periods later means the viewer stopped reading: its stream
    // would hold a watch, and its socket, for ever.
    let unsentFor = 0;
    const keepAlive = setInterval(() => {
      if (unsentFor > 0) {
        if (++unsentFor > 2) this.kill();
        return;
      }
      unsentFor = 1;
      void sse.write(': keep-alive\n\n').then(() => (unsentFor = 0));
      void this.#options.allowed?.().then(
        (allowed) => allowed || this.kill(),
        () => undefined, // a store that blinked is no revocation: asked again next time
      );
    }, this.#options.keepAliveMs);
    keepAlive.unref();
    try {
      await this.#pump(sse, resumeFrom);
      if (this.#stop.signal.reason === SESSION_STOP.shutdown && !sse.aborted)
        await sse.writeSSE({
          event: 'shutdown',
          data: JSON.stringify({ reason: SESSION_STOP.shutdown }),
          retry: RECONNECT_AFTER_SHUTDOWN_MS,
        });
    } finally {
      clearInterval(keepAlive);
      client.removeEventListener('abort', leave);
      this.#close();
    }
  }

  async #pump(sse: SSEStreamingApi, resumeFrom: number | null): Promise<void> {
    // An id past every version of this execution was not given by it (an execution deleted and
    // made anew, a made-up id): such a viewer starts over with a snapshot, not a silent wait.
    const known = resumeFrom !== null && resumeFrom <= (this.#watch.latestVersion ?? -1);
    let sent = known ? resumeFrom : -1;
    let event = known ? 'update' : 'snapshot';
    for (;;) {
      const next = await this.#watch.next(sent, this.#stop.signal);
      if (next === 'aborted') return;
      if (next === 'gone') {
        await this.#end(sse, { status: null, reason: 'deleted' });
        return;
      }
      if (next.version > sent) {
        await sse.writeSSE({ event, id: String(next.version), data: next.view });
        sent = next.version;
        event = 'update';
      }
      if (isTerminal(next.status)) {
        await this.#end(sse, endOf(next));
        return;
      }
    }
  }

  async #end(sse: SSEStreamingApi, data: Record<string, unknown>): Promise<void> {
    await sse.writeSSE({
      event: 'end',
      data: JSON.stringify({ executionId: this.#options.executionId, ...data }),
    });
  }
}

function endOf(checkpoint: Checkpoint) {
  return { status: apiStatus(checkpoint.status), version: checkpoint.version, reason: 'terminal' };
}
