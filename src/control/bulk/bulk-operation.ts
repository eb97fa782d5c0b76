import { ID_SEPARATOR, PLATFORM_TENANT, type ControlKey } from '../../store/control-store.js';

export type BulkAction = 'cancel' | 'retry' | 'replay';

export type BulkFilter =
  { ids: string[] } | { status?: string[]; flowId?: string; from?: string; to?: string };

/** A bulk operation as stored (docs/http-api.md §4): progress is saved after every execution. */
export interface BulkOperation {
  id: string;
  tenantId: string;
  action: BulkAction;
  filter: BulkFilter;
  status: 'pending' | 'running' | 'completed';
  /** Executions selected so far (the whole selection once completed). */
  matched: number;
  /** Executions the action was applied to. */
  done: number;
  /** Executions the action was refused for (e.g. a retry of a completed execution). */
  failed: number;
  /** The first refusals, for an operator to read. */
  failures: Array<{ executionId: string; reason: string }>;
  /** Where the next batch starts: the store's list cursor, or the offset into `ids`. */
  cursor: string | null;
  offset: number;
  /**
   * A filter's batch cut short by an outage: the executions of the page at `cursor` already
   * acted on. The page is listed again on resume, and those that still match are skipped by id,
   * not by position: the ones acted on may have left the filter (cancelled), shifting the page.
   */
  handled?: string[];
  /**
   * The execution being acted on, saved before the action (write-ahead): a runner that takes
   * over after a crash settles it first, without acting twice (`version`: the execution's
   * version before the action; a retry that took effect changed it).
   */
  inFlight?: { executionId: string; version: number };
  /** The process working on it and until when (ms): another takes over after a crash. */
  lease: { owner: string; until: number } | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export function bulkKey(tenant: string, id: string): ControlKey {
  return { collection: 'bulk_operations', tenant, id };
}

/** Active operations of every tenant, so a runner finds them without knowing the tenants. */
export function bulkIndexKey(tenant: string, id: string): ControlKey {
  return {
    collection: 'bulk_operations',
    tenant: PLATFORM_TENANT,
    id: `${tenant}${ID_SEPARATOR}${id}`,
  };
}
