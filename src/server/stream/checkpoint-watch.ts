import {
  isTerminal,
  type ExecutionState,
  type ExecutionStatus,
} from '../../state/execution-state.js';
import type { Logger } from '../../util/logger.js';

/** One saved version of an execution, rendered once for every viewer of it. */
export interface Checkpoint {
  /** The state's `version`: strictly increases with every save (the SSE event id). */
  version: number;
  status: ExecutionStatus;
  /** The whole view of `GET /v1/executions/{id}`, as JSON text. */
  view: string;
}

/** What a viewer waiting on the watch gets: a checkpoint, `gone` (deleted), or `aborted`. */
export type WatchResult = Checkpoint | 'gone' | 'aborted';

/** Where the watch reads its one execution, and how a state becomes its view. */
export interface CheckpointSource {
  load(): Promise<ExecutionState | null>;
  render(state: ExecutionState): Promise<string>;
}

export interface PollTiming {
  /** The pause after a poll that found a new version (ms). */
  minPollMs: number;
  /** The pause doubles while nothing changes, up to this (ms). */
  maxPollMs: number;
}

/**
 * Follows one execution's checkpoints for all of its viewers: one poll loop (a `load` every
 * `minPollMs` after a change, doubling to `maxPollMs` while idle) and each new version rendered
 * once, however many streams show it. Viewers pull with `next(afterVersion)`: a slow one skips
 * versions it had no time to send instead of queueing them, which loses nothing because every
 * checkpoint carries the whole view.
 */
export class CheckpointWatch {
  readonly #source: CheckpointSource;
  readonly #timing: PollTiming;
  readonly #log: Logger;
  readonly #wakers = new Set<() => void>();
  #latest: Checkpoint | null = null;
  #gone = false;
  #running = false;
  #polling = false;
  #delayMs: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(source: CheckpointSource, timing: PollTiming, log: Logger) {
    this.#source = source;
    this.#timing = timing;
    this.#log = log;
    this.#delayMs = timing.minPollMs;
  }

  /** Starts polling (idempotent); the first poll comes after `minPollMs`. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#delayMs = this.#timing.minPollMs;
    if (!this.#polling) this.#schedule();
  }

  /** Stops polling; a poll in flight finishes and schedules nothing. */
  stop(): void {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** The version viewers were last given (null: none read yet). */
  get latestVersion(): number | null {
    return this.#latest?.version ?? null;
  }

  /** Keeps a state read elsewhere (a new viewer's own read) when it is newer than the watch's. */
  async offer(state: ExecutionState): Promise<void> {
    if (this.#latest && state.version <= this.#latest.version) return;
    this.#accept(state, await this.#source.render(state));
  }

  /**
   * The latest checkpoint once it is newer than `afterVersion` or terminal (a terminal one may
   * be the version the viewer already has: it still needs to end); `gone` once the execution
   * is deleted; `aborted` when `signal` fires first.
   */
  next(afterVersion: number, signal: AbortSignal): Promise<WatchResult> {
    const ready = this.#ready(afterVersion);
    if (ready) return Promise.resolve(ready);
    if (signal.aborted) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      const finish = (result: WatchResult) => {
        this.#wakers.delete(check);
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const check = () => {
        const result = this.#ready(afterVersion);
        if (result) finish(result);
      };
      const onAbort = () => finish('aborted');
      this.#wakers.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #ready(afterVersion: number): WatchResult | null {
    if (this.#gone) return 'gone';
    const latest = this.#latest;
    if (latest && (latest.version > afterVersion || isTerminal(latest.status))) return latest;
    return null;
  }

  /** True when `state` is newer than the latest checkpoint and replaced it (viewers woken). */
  #accept(state: ExecutionState, view: string): boolean {
    if (this.#latest && state.version <= this.#latest.version && !this.#gone) return false;
    this.#latest = { version: state.version, status: state.status, view };
    this.#gone = false;
    this.#wake();
    return true;
  }

  #wake(): void {
    for (const check of [...this.#wakers]) check();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#poll(), this.#delayMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    this.#timer = null;
    this.#polling = true;
    let changed = false;
    try {
      changed = await this.#pollOnce();
    } catch (error) {
      this.#log.warn({ err: error }, 'execution stream: reading the execution failed; retrying');
    } finally {
      this.#polling = false;
    }
    if (!this.#running) return;
    this.#delayMs = changed
      ? this.#timing.minPollMs
      : Math.min(this.#delayMs * 2, this.#timing.maxPollMs);
    this.#schedule();
  }

  async #pollOnce(): Promise<boolean> {
    const state = await this.#source.load();
    if (!state) {
      if (this.#gone) return false;
      this.#gone = true;
      this.#wake();
      return true;
    }
    if (this.#latest && state.version <= this.#latest.version && !this.#gone) return false;
    return this.#accept(state, await this.#source.render(state));
  }
}
