import { ID_SEPARATOR, PLATFORM_TENANT, type ControlKey } from '../../store/control-store.js';

/** A schedule as stored (docs/http-api.md §4 Schedules). Times are ISO 8601 UTC. */
export interface ScheduleRecord {
  id: string;
  tenantId: string;
  flowId: string;
  version: string | null;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  enabled: boolean;
  overlap: 'allow' | 'skip';
  /** When the schedule last started a run: a slot it fired, or a manual trigger; null before. */
  lastRunAt: string | null;
  /** That run (what `overlap: skip` waits on). */
  lastExecutionId: string | null;
  /**
   * The next slot comes after this: the last slot handled (fired, skipped, or failed to start)
   * or the time the schedule was re-enabled or re-timed. Records from before it have none:
   * `lastRunAt`, which then meant the same, stands in. Never in the API view.
   */
  slotsAfter?: string;
  /** Slots skipped because the last run had not settled. */
  skipped: number;
  /** Why the last slot could not start (a flow that is gone), or null. */
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export function scheduleKey(tenant: string, id: string): ControlKey {
  return { collection: 'schedules', tenant, id };
}

/**
 * The platform-wide index of every schedule, so a scheduler finds due schedules of all tenants
 * without knowing the tenants (one small record per schedule).
 */
export function scheduleIndexKey(tenant: string, id: string): ControlKey {
  return { collection: 'schedules', tenant: PLATFORM_TENANT, id: `${tenant}${ID_SEPARATOR}${id}` };
}

export function parseIndexId(indexId: string): { tenant: string; id: string } | null {
  const at = indexId.indexOf(ID_SEPARATOR);
  return at < 0 ? null : { tenant: indexId.slice(0, at), id: indexId.slice(at + 1) };
}

/** The time the schedule's next slot comes after (see `slotsAfter`). */
export function slotsAfter(schedule: ScheduleRecord): Date {
  return new Date(schedule.slotsAfter ?? schedule.lastRunAt ?? schedule.createdAt);
}
