import { randomUUID } from 'node:crypto';
import type { TaskQueue } from '../queue/task-queue.js';
import { type ControlStore, PLATFORM_TENANT } from '../store/control-store.js';
import { DEFAULT_TENANT, type ExecutionStore } from '../store/execution-store.js';
import { BackgroundLoop } from '../util/background-loop.js';
import type { Logger } from '../util/logger.js';
import { reapStale } from './reaper.js';

export interface ReaperLoopOptions {
  log: Logger;
  /** How often a pass may run across all processes (ms, default 60 s). */
  intervalMs?: number;
  /** No progress and no lease for this long: re-enqueued (ms, default 10 min, as `plaita reap`). */
  idleMs?: number;
}

/** The turn: whoever creates it reaps this interval; it expires by itself (no release). */
const TURN_KEY = { collection: 'settings' as const, tenant: PLATFORM_TENANT, id: 'reaper-turn' };

/**
 * `plaita reap` and the stores' sweep of expired records, run by itself: an execution left
 * `queued` or `running` by a process that died
 * between its save and its enqueue (or lost its message) continues without an operator. Every
 * worker and server runs this loop, but one pass per interval runs in all: the first to create
 * the expiring turn record in the control store. A pass only enqueues `run` for executions
 * idle past `idleMs` with no lease, which the claim and the fence make harmless if doubled.
 */
export class ReaperLoop {
  readonly #owner = `reaper-${randomUUID()}`;
  #loop: BackgroundLoop | undefined;

  constructor(
    private readonly deps: { store: ExecutionStore; queue: TaskQueue; control: ControlStore },
    private readonly options: ReaperLoopOptions,
  ) {}

  start(): this {
    // At a fixed rate, the first after one interval: the turn record expires at that pace.
    this.#loop ??= new BackgroundLoop(() => this.pass(), {
      name: 'the reaper',
      log: this.options.log,
      intervalMs: this.options.intervalMs ?? 60_000,
      pace: 'fixed-rate',
    }).start();
    return this;
  }

  async stop(): Promise<void> {
    await this.#loop?.stop();
  }

  /** One pass if this process wins the interval's turn; the ids it re-enqueued (else null). */
  async pass(): Promise<string[] | null> {
    const turn = { owner: this.#owner, at: new Date().toISOString() };
    const ttlMs = this.options.intervalMs ?? 60_000;
    if (!(await this.deps.control.create(TURN_KEY, turn, { ttlMs }))) return null;
    // Every tenant: `list` reads one, and an execution of any may be the one left behind.
    const tenants = new Set([DEFAULT_TENANT, ...(await this.deps.store.tenants())]);
    const reaped: string[] = [];
    for (const tenantId of tenants)
      reaped.push(
        ...(await reapStale(this.deps.store, this.deps.queue, {
          tenantId,
          idleMs: this.options.idleMs ?? 10 * 60_000,
        })),
      );
    if (reaped.length > 0)
      this.options.log.warn(
        { count: reaped.length, executionIds: reaped.slice(0, 20) },
        're-enqueued stale executions (no progress and no lease)',
      );
    // Expired rows (terminal executions past their TTL, spent control records) are invisible
    // to reads but take disk until swept: the SQL stores need this (Redis expires keys itself).
    const swept = (await this.deps.store.sweepExpired()) + (await this.deps.control.sweepExpired());
    if (swept > 0) this.options.log.info({ swept }, 'expired records removed');
    return reaped;
  }
}
