import { hostname } from 'node:os';
import { type ControlStore, PLATFORM_TENANT } from '../store/control-store.js';
import { BackgroundLoop } from '../util/background-loop.js';
import type { Logger } from '../util/logger.js';

/** What a worker says of itself (docs/http-api.md §4 `GET /v1/workers`). */
export interface WorkerBeat {
  id: string;
  host: string;
  pid: number;
  version: string;
  concurrency: number;
  inFlight: number;
  startedAt: string;
  lastSeenAt: string;
}

export interface HeartbeatSource {
  readonly workerId: string;
  readonly concurrency: number;
  readonly inFlightCount: number;
}

/** A beat lives this many intervals: a worker that stops beating drops out of the list by itself. */
const LIVES = 3;

/**
 * Registers a worker in the control store and beats every `intervalMs`: a platform-wide record
 * with a TTL, so `GET /v1/workers` lists the live ones without any sweep. Removed on stop.
 */
export class WorkerHeartbeat {
  readonly #startedAt = new Date().toISOString();
  #loop: BackgroundLoop | undefined;

  constructor(
    private readonly control: ControlStore,
    private readonly worker: HeartbeatSource,
    private readonly options: { intervalMs?: number; version: string; log: Logger },
  ) {}

  /** Registers at once, then beats at a fixed rate (a beat's record lives a few of them). */
  start(): this {
    this.#loop ??= new BackgroundLoop(() => this.beat(), {
      name: 'the worker heartbeat',
      log: this.options.log,
      intervalMs: this.options.intervalMs ?? 5_000,
      firstTickMs: 'now',
      pace: 'fixed-rate',
    }).start();
    return this;
  }

  async beat(): Promise<void> {
    const record: WorkerBeat = {
      id: this.worker.workerId,
      host: hostname(),
      pid: process.pid,
      version: this.options.version,
      concurrency: this.worker.concurrency,
      inFlight: this.worker.inFlightCount,
      startedAt: this.#startedAt,
      lastSeenAt: new Date().toISOString(),
    };
    await this.control.put(this.#key(), record, {
      ttlMs: LIVES * (this.options.intervalMs ?? 5_000),
    });
  }

  async stop(): Promise<void> {
    await this.#loop?.stop(); // a beat in flight would otherwise list a stopped worker again
    await this.control.delete(this.#key()).catch(() => undefined);
  }

  #key() {
    return { collection: 'workers' as const, tenant: PLATFORM_TENANT, id: this.worker.workerId };
  }
}
