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
  /** The last slot handled (fired, or skipped by `overlap: skip`); null before the first. */
  lastRunAt: string | null;
  lastExecutionId: string | null;
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
