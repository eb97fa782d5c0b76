import { randomUUID } from 'node:crypto';
import type { ExecutionState } from '../../state/execution-state.js';
import { type ControlRecord, updateRecord } from '../../store/control-store.js';
import { NotFoundError } from '../../errors/control-errors.js';
import { keyedId } from '../idempotency.js';
import { type StartDeps, startExecution } from '../idempotent-start.js';
import { CronSpec } from './cron-spec.js';
import {
  scheduleIndexKey,
  scheduleKey,
  slotsAfter,
  type ScheduleRecord,
} from './schedule-record.js';

/** What a caller sets on a schedule (unset fields of a new one take their defaults). */
export interface ScheduleFields {
  flowId: string;
  version?: string | null | undefined;
  cron: string;
  timezone?: string | undefined;
  input?: Record<string, unknown> | undefined;
  enabled?: boolean | undefined;
  overlap?: 'allow' | 'skip' | undefined;
}

/**
 * Schedules as records (docs/http-api.md §4 schedules), without HTTP: how a schedule is made,
 * changed (compare-and-set), removed and run by hand. The routes add roles, audit and views;
 * the Scheduler fires the slots.
 */
export class Schedules {
  constructor(private readonly deps: StartDeps) {}

  /** A new schedule, or (same Idempotency-Key) the one the first request made: `created` false. */
  async create(
    tenantId: string,
    fields: ScheduleFields,
    idempotencyKey?: string,
  ): Promise<{ record: ScheduleRecord; created: boolean }> {
    const timezone = fields.timezone ?? 'UTC';
    CronSpec.forWriting(fields.cron, timezone);
    await this.#requirePublished(tenantId, fields.flowId, fields.version ?? null);
    const now = new Date().toISOString();
    // With an Idempotency-Key the schedule's id follows from it: a repeat finds the first (two
    // schedules of one intent would each fire every slot).
    const record: ScheduleRecord = {
      id:
        idempotencyKey === undefined ? randomUUID() : keyedId('schedule', tenantId, idempotencyKey),
      tenantId,
      flowId: fields.flowId,
      version: fields.version ?? null,
      cron: fields.cron,
      timezone,
      input: fields.input ?? {},
      enabled: fields.enabled ?? true,
      overlap: fields.overlap ?? 'allow',
      lastRunAt: null,
      lastExecutionId: null,
      slotsAfter: now,
      lastError: null,
      skipped: 0,
      createdAt: now,
      updatedAt: now,
    };
    // The index first: a schedule the scheduler cannot find would be listed but never fire
    // (a failure between the two writes); an index entry without its record is passed over.
    await this.deps.control.put(scheduleIndexKey(tenantId, record.id), { at: now });
    if (!(await this.deps.control.create(scheduleKey(tenantId, record.id), record)))
      return { record: (await this.get(tenantId, record.id)).doc, created: false };
    return { record, created: true };
  }

  async get(tenantId: string, id: string): Promise<ControlRecord<ScheduleRecord>> {
    const record = await this.deps.control.get<ScheduleRecord>(scheduleKey(tenantId, id));
    if (!record) throw new NotFoundError(`no schedule ${id}`);
    return record;
  }

  /** Changes the fields given, by compare-and-set (a concurrent change is read again). */
  async update(
    tenantId: string,
    id: string,
    patch: { [K in keyof ScheduleFields]?: ScheduleFields[K] | undefined },
  ): Promise<ScheduleRecord> {
    for (;;) {
      const record = await this.get(tenantId, id);
      const changed: ScheduleRecord = { ...record.doc, updatedAt: new Date().toISOString() };
      if (patch.flowId !== undefined) changed.flowId = patch.flowId;
      if (patch.version !== undefined) changed.version = patch.version;
      if (patch.cron !== undefined) changed.cron = patch.cron;
      if (patch.timezone !== undefined) changed.timezone = patch.timezone;
      if (patch.input !== undefined) changed.input = patch.input;
      if (patch.enabled !== undefined) changed.enabled = patch.enabled;
      if (patch.overlap !== undefined) changed.overlap = patch.overlap;
      // A pattern that never fires is refused when it is set, not when another field changes.
      if (patch.cron !== undefined || patch.timezone !== undefined)
        CronSpec.forWriting(changed.cron, changed.timezone);
      else new CronSpec(changed.cron, changed.timezone);
      if (patch.flowId !== undefined || patch.version !== undefined)
        await this.#requirePublished(tenantId, changed.flowId, changed.version);
      // Re-enabled or re-timed: slots from before the change are not owed. The same values sent
      // again (the console's form sends every field) change nothing: a due slot stays owed.
      const was = record.doc;
      if (
        (changed.enabled && !was.enabled) ||
        changed.cron !== was.cron ||
        changed.timezone !== was.timezone
      )
        changed.slotsAfter = changed.updatedAt;
      if (await this.deps.control.replace(scheduleKey(tenantId, id), changed, record.version))
        return changed;
    }
  }

  async remove(tenantId: string, id: string): Promise<void> {
    await this.get(tenantId, id);
    await this.deps.control.delete(scheduleKey(tenantId, id));
    await this.deps.control.delete(scheduleIndexKey(tenantId, id));
  }

  /**
   * Runs the schedule now. An Idempotency-Key makes a retried trigger the same run (`created`
   * false). A manual run is the schedule's last run too: `overlap: skip` waits for it like for
   * a slot's; slots are not moved.
   */
  async trigger(
    tenantId: string,
    id: string,
    idempotencyKey?: string,
  ): Promise<{ state: ExecutionState; created: boolean }> {
    const { doc } = await this.get(tenantId, id);
    const started = await startExecution(
      this.deps,
      tenantId,
      {
        flowId: doc.flowId,
        ...(doc.version === null ? {} : { version: doc.version }),
        input: doc.input,
      },
      `schedule:${id}:manual:${idempotencyKey ?? randomUUID()}`,
    );
    if (started.created) await this.#recordRun(tenantId, id, started.state.executionId);
    return started;
  }

  /** A schedule deleted meanwhile keeps its run and no record. */
  async #recordRun(tenantId: string, id: string, executionId: string): Promise<void> {
    const now = new Date().toISOString();
    // Bounded: the run is started either way, and the next slot's check reads the execution.
    await updateRecord(
      this.deps.control,
      scheduleKey(tenantId, id),
      (doc: ScheduleRecord) => ({
        ...doc,
        // Written out before lastRunAt moves: records from before slotsAfter read it from there.
        slotsAfter: slotsAfter(doc).toISOString(),
        lastRunAt: now,
        lastExecutionId: executionId,
        updatedAt: now,
      }),
      { attempts: 5 },
    );
  }

  async #requirePublished(tenantId: string, flowId: string, version: string | null) {
    if (!(await this.deps.flows.getByVersion(flowId, version, { tenantId })))
      throw new NotFoundError(
        `flow '${flowId}'${version ? ` version ${version}` : ''} is not published`,
        {
          fieldIssues: [
            { path: version ? 'body.version' : 'body.flowId', message: 'not published' },
          ],
        },
      );
  }
}
