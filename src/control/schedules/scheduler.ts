import { isTerminal } from '../../state/execution-state.js';
import type { ControlPage } from '../../store/control-store.js';
import { PLATFORM_TENANT, updateRecord } from '../../store/control-store.js';
import { BackgroundLoop } from '../../util/background-loop.js';
import { type Clock, systemClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { isRetryable, isUnavailable } from '../../errors/control-errors.js';
import { type StartDeps, startExecution } from '../idempotent-start.js';
import { CronSpec } from './cron-spec.js';
import { parseIndexId, scheduleKey, slotsAfter, type ScheduleRecord } from './schedule-record.js';

export interface SchedulerOptions {
  /** How often due schedules are looked for (ms, default 500). */
  tickMs?: number;
  log: Logger;
  /** What "due" is measured against, and what paces the ticks (default the system clock). */
  clock?: Clock;
}

/**
 * Fires schedules (docs/http-api.md §4): each slot exactly once however many servers and workers run
 * this — the execution of a slot is started with the idempotency key `schedule:<id>:<slot>`, so
 * every process that sees the slot due starts the same execution, and only the first creates it.
 * After downtime only the latest missed slot fires. `overlap: skip` passes a slot while the last
 * run has not settled (ended or waiting).
 */
export class Scheduler {
  #loop: BackgroundLoop | undefined;

  constructor(
    private readonly deps: StartDeps,
    private readonly options: SchedulerOptions,
  ) {}

  get #clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  start(): this {
    this.#loop ??= new BackgroundLoop(() => this.tick(), {
      name: 'the scheduler',
      log: this.options.log,
      intervalMs: this.options.tickMs ?? 500,
      firstTickMs: 0,
      maxBackoffMs: 30_000,
      clock: this.#clock,
    }).start();
    return this;
  }

  async stop(): Promise<void> {
    await this.#loop?.stop();
  }

  /** One pass over every schedule; fires what is due. Returns when done (tests call it). */
  async tick(now: Date = new Date(this.#clock.now())): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const page: ControlPage<unknown> = await this.deps.control.list({
        collection: 'schedules',
        tenant: PLATFORM_TENANT,
        limit: 500,
        after,
      });
      for (const item of page.items) {
        const ref = parseIndexId(item.key.id);
        if (ref) await this.#fireOne(ref.tenant, ref.id, now);
      }
      if (page.next === null) return;
      after = page.next;
    }
  }

  /**
   * One schedule, isolated: a failure of its own (a record whose time zone this runtime
   * refuses, a flow this process cannot load, a start of the slot still in progress elsewhere)
   * is logged and passed over — the slot stays due for the next tick — so the schedules after it
   * in the index still fire. A store or queue outage ends the tick (every one would fail).
   */
  async #fireOne(tenant: string, id: string, now: Date): Promise<void> {
    try {
      await this.#fireIfDue(tenant, id, now);
    } catch (error) {
      if (isUnavailable(error)) throw error;
      this.options.log.warn({ schedule: id, tenant, err: error }, 'schedule not fired this tick');
    }
  }

  async #fireIfDue(tenant: string, id: string, now: Date): Promise<void> {
    const record = await this.deps.control.get<ScheduleRecord>(scheduleKey(tenant, id));
    if (!record || !record.doc.enabled) return;
    const schedule = record.doc;
    const spec = new CronSpec(schedule.cron, schedule.timezone);
    const next = spec.next(slotsAfter(schedule));
    if (next === null || next > now) return;
    // Only the most recent slot: the ones missed during downtime are passed over.
    const slot = spec.latestAtOrBefore(now) ?? next;
    const outcome: SlotOutcome = { skipped: 0, lastError: schedule.lastError, run: null };
    if (schedule.overlap === 'skip' && (await this.#lastRunBusy(schedule))) {
      outcome.skipped = 1;
    } else {
      // Read again just before starting: a DELETE or PATCH answered since the read above (the
      // overlap check may have taken a store round trip) must not be followed by a run. A
      // record changed in any way is looked at afresh on the next tick.
      const current = await this.deps.control.get<ScheduleRecord>(scheduleKey(tenant, id));
      if (current?.version !== record.version) return;
      try {
        const started = await startExecution(
          this.deps,
          tenant,
          {
            flowId: schedule.flowId,
            ...(schedule.version === null ? {} : { version: schedule.version }),
            input: schedule.input,
          },
          `schedule:${schedule.id}:${slot.toISOString()}`,
        );
        outcome.run = { at: slot.toISOString(), executionId: started.state.executionId };
        outcome.lastError = null;
        if (started.created)
          this.options.log.info(
            {
              schedule: schedule.id,
              tenant,
              slot: slot.toISOString(),
              executionId: started.state.executionId,
            },
            'schedule fired',
          );
      } catch (error) {
        // A flow that is gone or invalid will not heal by retrying the slot: record it, move on.
        // A store that is down is retried on the next tick (the slot stays due).
        if (isRetryable(error)) throw error;
        outcome.lastError = error instanceof Error ? error.message : String(error);
        this.options.log.warn(
          { schedule: schedule.id, tenant, err: error },
          'schedule could not fire its slot',
        );
      }
    }
    // Bounded: a slot whose record is lost comes due again, and its idempotency key holds.
    await updateRecord(
      this.deps.control,
      scheduleKey(tenant, id),
      (doc: ScheduleRecord) => withSlot(doc, slot, outcome, now),
      { read: record, attempts: 5 },
    );
  }

  async #lastRunBusy(schedule: ScheduleRecord): Promise<boolean> {
    if (!schedule.lastExecutionId) return false;
    let last;
    try {
      last = await this.deps.store.load(schedule.lastExecutionId, {
        tenantId: schedule.tenantId,
      });
    } catch (error) {
      if (isRetryable(error)) throw error;
      // A last run that can never be read (state_corrupt) must not block the schedule for good.
      this.options.log.warn(
        { schedule: schedule.id, executionId: schedule.lastExecutionId, err: error },
        'the last run of a schedule with overlap: skip cannot be read; firing anyway',
      );
      return false;
    }
    return last !== null && !isTerminal(last.status) && last.status !== 'suspended';
  }
}

/** What one slot did: a slot skipped, the run it started, or why it could not start one. */
interface SlotOutcome {
  skipped: number;
  lastError: string | null;
  run: { at: string; executionId: string } | null;
}

/**
 * `doc` with the slot recorded, or null when there is nothing to add. Another scheduler that
 * recorded the slot (or a later one) first wins: the slot fired once (its idempotency key). A
 * manual trigger or an edit written meanwhile is kept; of two runs, the later is the last run.
 */
function withSlot(
  doc: ScheduleRecord,
  slot: Date,
  outcome: SlotOutcome,
  now: Date,
): ScheduleRecord | null {
  const slotDone = slotsAfter(doc) >= slot;
  const { run } = outcome;
  const runIsLater =
    run !== null && doc.lastExecutionId !== run.executionId && (doc.lastRunAt ?? '') <= run.at;
  if (slotDone && !runIsLater) return null;
  const next: ScheduleRecord = { ...doc, updatedAt: now.toISOString() };
  if (!slotDone) {
    next.slotsAfter = slot.toISOString();
    next.skipped = doc.skipped + outcome.skipped;
    next.lastError = outcome.lastError;
  }
  if (runIsLater) {
    next.lastRunAt = run.at;
    next.lastExecutionId = run.executionId;
  }
  return next;
}
