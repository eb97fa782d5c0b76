import { generationFloor } from '../../store/shared/generation-floor.js';
import { isTerminal, type ExecutionState } from '../../state/execution-state.js';
import { assembleState, type EncodedEntry } from '../../store/checkpoint-parts.js';
import {
  DEFAULT_TENANT,
  type ExecutionStore,
  type ExecutionStoreOptions,
  type Lease,
  type LeaseRequest,
  type ListPage,
  type ListQuery,
  type SaveOptions,
  type TenantScope,
  type LeaseRenewal,
  type LeaseRelease,
} from '../../store/execution-store.js';
import { decodeSummary, type ExecutionRow } from '../../store/shared/execution-row.js';
import { planList, toPage, type ListPlan } from '../../store/shared/list-plan.js';
import {
  asFullRewrite,
  fullRewriteBytes,
  planSave,
  rejectOversized,
  type SavePlan,
} from '../../store/shared/save-plan.js';
import {
  resolveStoreOptions,
  type ResolvedStoreOptions,
} from '../../store/shared/store-options.js';
import { alreadyStored, fenceRejected } from '../../store/shared/fence.js';
import { assertStorableOwner, assertTtl } from '../../store/shared/stored-text.js';
import { compareCodePoints } from '../../util/compare-code-points.js';

interface StoredExecution {
  row: ExecutionRow;
  /** Encoded node results; Map order is the order results were first recorded. */
  /** By stored key: node results and timing entries. */
  entries: Map<string, EncodedEntry>;
  stateBytes: number;
  lease: { owner: string; expiresAt: number } | null;
  /** Survives release, so the next acquisition still gets a larger generation. */
  leaseGeneration: number;
  /** Set by requestCancel; saves never clear it. */
  cancelRequested: boolean;
}

/**
 * The in-process store, for tests and one-shot runs. It keeps only ENCODED text, laid out by
 * the shared checkpoint layout like every other store, so a value that would not survive
 * SQLite or Redis does not survive here either (docs/durable-contract.md §2), and a loaded state never
 * shares references with the saved one. Times are its clock's (`ExecutionStoreOptions.clock`), like the SQL stores.
 * Listing scans the tenant's executions: there is no index to serve, and no I/O to save.
 */
export class MemoryExecutionStore implements ExecutionStore {
  private readonly options: ResolvedStoreOptions;
  private readonly byTenant = new Map<string, Map<string, StoredExecution>>();
  private closed = false;

  constructor(options: ExecutionStoreOptions = {}) {
    this.options = resolveStoreOptions(options);
  }

  save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    return this.run(() => {
      const now = this.options.clock.now();
      const plan = planSave(state, options, this.options, now);
      const current = this.live(plan.row.tenantId, plan.row.executionId, now);
      if (plan.createOnly && current !== undefined) throw alreadyStored(plan.row.executionId);
      if (plan.fence !== null) checkFence({ ...plan, fence: plan.fence }, current);
      if (current === undefined || plan.checkpoint.fullRewrite)
        this.replace(
          asFullRewrite(state, plan, this.options),
          current,
          this.generationOf(plan.row),
        );
      else this.update(plan, current);
    });
  }

  tenants(): Promise<string[]> {
    return this.run(() =>
      [...this.byTenant].filter(([, executions]) => executions.size > 0).map(([id]) => id),
    );
  }

  load(executionId: string, options: TenantScope = {}): Promise<ExecutionState | null> {
    return this.run(() => {
      const stored = this.live(
        options.tenantId ?? DEFAULT_TENANT,
        executionId,
        this.options.clock.now(),
      );
      if (stored === undefined) return null;
      return assembleState(
        stored.row.header,
        [...stored.entries.values()].map((e) => [e.key, e.text] as const),
      );
    });
  }

  list(query: ListQuery = {}): Promise<ListPage> {
    return this.run(() => {
      const plan = planList(query);
      if (plan.matchesNothing) return { items: [], nextCursor: null };
      const now = this.options.clock.now();
      const rows = [...(this.byTenant.get(plan.tenantId)?.values() ?? [])]
        .map((stored) => stored.row)
        .filter((row) => isLive(row, now) && matches(row, plan))
        .sort(
          (a, b) => b.createdAt - a.createdAt || compareCodePoints(b.executionId, a.executionId),
        )
        .slice(0, plan.limit + 1);
      return toPage(
        rows.map((row) => ({
          createdAt: row.createdAt,
          executionId: row.executionId,
          summary: decodeSummary(row.summary),
        })),
        plan.limit,
      );
    });
  }

  delete(executionId: string, options: TenantScope = {}): Promise<boolean> {
    return this.run(() => {
      const tenantId = options.tenantId ?? DEFAULT_TENANT;
      const live = this.live(tenantId, executionId, this.options.clock.now()) !== undefined;
      this.byTenant.get(tenantId)?.delete(executionId);
      return live;
    });
  }

  acquireLease(executionId: string, request: LeaseRequest): Promise<Lease | null> {
    return this.run(() => {
      assertStorableOwner(request.owner);
      assertTtl(request.ttlMs);
      const now = this.options.clock.now();
      const stored = this.live(request.tenantId ?? DEFAULT_TENANT, executionId, now);
      if (stored === undefined) return null;
      const held =
        stored.lease !== null &&
        stored.lease.expiresAt > now &&
        stored.lease.owner !== request.owner;
      if (held) return null;
      stored.leaseGeneration = Math.max(stored.leaseGeneration + 1, generationFloor());
      stored.lease = { owner: request.owner, expiresAt: now + request.ttlMs };
      return leaseOf(stored);
    });
  }

  renewLease(executionId: string, lease: LeaseRenewal): Promise<boolean> {
    return this.run(() => {
      assertTtl(lease.ttlMs);
      const now = this.options.clock.now();
      const stored = this.live(lease.tenantId ?? DEFAULT_TENANT, executionId, now);
      if (stored?.lease == null || !holds(stored, lease) || stored.lease.expiresAt <= now)
        return false;
      stored.lease.expiresAt = now + lease.ttlMs;
      return true;
    });
  }

  releaseLease(executionId: string, lease: LeaseRelease): Promise<void> {
    return this.run(() => {
      const stored = this.byTenant.get(lease.tenantId ?? DEFAULT_TENANT)?.get(executionId);
      if (stored !== undefined && holds(stored, lease)) stored.lease = null;
    });
  }

  getLease(executionId: string, options: TenantScope = {}): Promise<Lease | null> {
    return this.run(() => {
      const now = this.options.clock.now();
      const stored = this.live(options.tenantId ?? DEFAULT_TENANT, executionId, now);
      return stored?.lease && stored.lease.expiresAt > now ? leaseOf(stored) : null;
    });
  }

  requestCancel(executionId: string, options: TenantScope = {}): Promise<boolean> {
    return this.run(() => {
      const stored = this.live(
        options.tenantId ?? DEFAULT_TENANT,
        executionId,
        this.options.clock.now(),
      );
      // A terminal execution's cancel request is spent (as the SQL stores' trigger has it).
      if (stored !== undefined && !isTerminal(stored.row.status)) stored.cancelRequested = true;
      return stored !== undefined;
    });
  }

  isCancelRequested(executionId: string, options: TenantScope = {}): Promise<boolean> {
    return this.run(
      () =>
        this.live(options.tenantId ?? DEFAULT_TENANT, executionId, this.options.clock.now())
          ?.cancelRequested ?? false,
    );
  }

  sweepExpired(now: number = this.options.clock.now()): Promise<number> {
    return this.run(() => {
      let swept = 0;
      for (const executions of this.byTenant.values()) {
        for (const [id, stored] of executions) {
          if (!isLive(stored.row, now)) {
            executions.delete(id);
            swept += 1;
          }
        }
      }
      return swept;
    });
  }

  close(): Promise<void> {
    this.closed = true;
    this.byTenant.clear();
    return Promise.resolve();
  }

  /** Every operation is synchronous underneath; errors still arrive as rejections. */
  private run<T>(operation: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('MemoryExecutionStore is closed'));
    // The executor turns a throw into a rejection.
    return new Promise<T>((resolve) => resolve(operation()));
  }

  private live(tenantId: string, executionId: string, now: number): StoredExecution | undefined {
    const stored = this.byTenant.get(tenantId)?.get(executionId);
    return stored !== undefined && isLive(stored.row, now) ? stored : undefined;
  }

  /** Kept even past expiry: a fencing token never goes back. */
  private generationOf(row: ExecutionRow): number {
    return this.byTenant.get(row.tenantId)?.get(row.executionId)?.leaseGeneration ?? 0;
  }

  private replace(
    plan: SavePlan,
    current: StoredExecution | undefined,
    leaseGeneration: number,
  ): void {
    let executions = this.byTenant.get(plan.row.tenantId);
    if (executions === undefined)
      this.byTenant.set(plan.row.tenantId, (executions = new Map<string, StoredExecution>()));
    executions.set(plan.row.executionId, {
      row: plan.row,
      entries: new Map(plan.checkpoint.entries.map((entry) => [entry.key, entry])),
      stateBytes: fullRewriteBytes(plan),
      // An expired execution that is saved again starts over, as in the SQL stores.
      lease: current?.lease ?? null,
      leaseGeneration,
      cancelRequested: !isTerminal(plan.row.status) && (current?.cancelRequested ?? false),
    });
  }

  /** Incremental save: checks the running total first, then writes only the changed entries. */
  private update(plan: SavePlan, stored: StoredExecution): void {
    const { entries, removedKeys } = plan.checkpoint;
    let replaced = 0;
    for (const key of removedKeys) replaced += stored.entries.get(key)?.bytes ?? 0;
    for (const entry of entries) replaced += stored.entries.get(entry.key)?.bytes ?? 0;
    const total =
      stored.stateBytes -
      stored.row.headerBytes +
      plan.row.headerBytes -
      replaced +
      plan.writtenEntryBytes;
    if (total > this.options.maxStateBytes)
      rejectOversized(
        plan,
        [...stored.entries].map(([key, e]) => [key, e.bytes] as const),
        this.options.maxStateBytes,
      );
    for (const key of removedKeys) stored.entries.delete(key);
    for (const entry of entries) stored.entries.set(entry.key, entry);
    stored.row = plan.row;
    stored.stateBytes = total;
    if (isTerminal(plan.row.status)) stored.cancelRequested = false;
  }
}

function checkFence(
  plan: SavePlan & { fence: number },
  current: StoredExecution | undefined,
): void {
  if (current?.leaseGeneration !== plan.fence)
    throw fenceRejected(plan.row.executionId, current?.leaseGeneration ?? null, plan.fence);
}

function isLive(row: ExecutionRow, now: number): boolean {
  return row.expiresAt === null || row.expiresAt > now;
}

function holds(stored: StoredExecution, lease: { owner: string; generation: number }): boolean {
  return (
    stored.lease !== null &&
    stored.lease.owner === lease.owner &&
    stored.leaseGeneration === lease.generation
  );
}

function leaseOf(stored: StoredExecution): Lease {
  const lease = stored.lease!;
  return {
    executionId: stored.row.executionId,
    tenantId: stored.row.tenantId,
    owner: lease.owner,
    generation: stored.leaseGeneration,
    expiresAt: lease.expiresAt,
  };
}

function matches(row: ExecutionRow, plan: ListPlan): boolean {
  if (plan.statuses !== null && !plan.statuses.includes(row.status)) return false;
  if (plan.flowId !== null && row.flowId !== plan.flowId) return false;
  if (plan.flowHash !== null && row.flowHash !== plan.flowHash) return false;
  if (plan.createdAfter !== null && row.createdAt <= plan.createdAfter) return false;
  if (plan.createdBefore !== null && row.createdAt >= plan.createdBefore) return false;
  const cursor = plan.cursor;
  return (
    cursor === null ||
    row.createdAt < cursor.createdAt ||
    (row.createdAt === cursor.createdAt &&
      compareCodePoints(row.executionId, cursor.executionId) < 0)
  );
}
