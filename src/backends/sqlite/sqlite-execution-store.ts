import { generationFloor } from '../../store/shared/generation-floor.js';
import type { ExecutionState } from '../../state/execution-state.js';
import { assembleState } from '../../store/checkpoint-parts.js';
import {
  claimedWith,
  type ClaimResult,
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
import { decodeSummary } from '../../store/shared/execution-row.js';
import { planList, toPage } from '../../store/shared/list-plan.js';
import { listSql } from '../../store/sql/list-sql.js';
import {
  resolveStoreOptions,
  type ResolvedStoreOptions,
} from '../../store/shared/store-options.js';
import { executionKey, type ExecutionKey, renewalKey } from '../../store/shared/stored-key.js';
import { assertStorableOwner, assertTtl } from '../../store/shared/stored-text.js';
import * as sql from './sqlite-execution-sql.js';
import { SqliteDatabase } from './sqlite-database.js';
import { SqliteSaves } from './sqlite-saves.js';
import { TickBatch } from '../../util/tick-batch.js';

export interface SqliteExecutionStoreOptions extends ExecutionStoreOptions {
  /** The database file (created if missing), or `:memory:`. */
  path: string;
}

/** Rows removed per transaction by the sweep, so it never holds the write lock for long. */
const SWEEP_BATCH = 500;

/** What the claim transaction read, before the state is decoded. */
type ClaimRead =
  | { kind: 'absent' }
  | { kind: 'held' }
  | {
      kind: 'claimed';
      lease: { generation: number; expiresAt: number };
      header: string;
      nodes: { nodeKey: string; value: string }[];
      cancelRequested: boolean;
    };

/**
 * The embedded default store: one SQLite file (better-sqlite3, WAL), safe to share between
 * processes on one machine. The saves of one turn of the event loop share one `BEGIN IMMEDIATE`
 * transaction (SqliteSaves); a file locked by another writer for longer than `connectTimeoutMs` (the busy timeout) rejects with
 * StoreUnavailableError. Times (leases, expiry) are its clock's (`ExecutionStoreOptions.clock`).
 */
export class SqliteExecutionStore implements ExecutionStore {
  private readonly options: ResolvedStoreOptions;
  private readonly database: SqliteDatabase;
  private readonly saves: SqliteSaves;

  constructor(options: SqliteExecutionStoreOptions) {
    this.options = resolveStoreOptions(options);
    this.database = new SqliteDatabase(
      options.path,
      this.options.connectTimeoutMs,
      'SqliteExecutionStore',
    );
    this.saves = new SqliteSaves(this.database, this.options);
  }

  /** Planned at once, committed with the other saves of this turn (SqliteSaves: group commit). */
  save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    return this.saves.save(state, options);
  }

  async load(executionId: string, options: TenantScope = {}): Promise<ExecutionState | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const stored = await this.database.use(() => this.readState(key, this.options.clock.now()));
    return stored
      ? assembleState(
          stored.header,
          stored.nodes.map((n) => [n.nodeKey, n.value] as const),
        )
      : null;
  }

  /** Header and results of a live execution in one statement (one snapshot); call inside `use`. */
  private readState(
    key: ExecutionKey,
    now: number,
  ): { header: string; nodes: { nodeKey: string; value: string }[] } | undefined {
    const rows = this.database.all<{ nodeKey: string | null; value: string }>(sql.SELECT_STATE, {
      ...key,
      now,
    });
    const first = rows[0];
    if (first === undefined || first.nodeKey !== null) return undefined;
    return { header: first.value, nodes: rows.slice(1) as { nodeKey: string; value: string }[] };
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    const plan = planList(query);
    if (plan.matchesNothing) return { items: [], nextCursor: null };
    const statement = listSql(
      plan,
      'executions',
      this.options.clock.now(),
      sql.SQLITE_LIST_DIALECT,
    );
    const rows = await this.database.use(
      () => this.database.statement(statement.text).all(...statement.values) as ListRow[],
    );
    return toPage(
      rows.map((r) => ({
        createdAt: r.created_at,
        executionId: r.execution_id,
        summary: decodeSummary(r.summary),
      })),
      plan.limit,
    );
  }

  async delete(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    return await this.database.use((db) =>
      db
        .transaction(() => {
          // Its node results go with the row (a trigger, migration 0007).
          const row = this.database.get<{ live: number }>(sql.DELETE_EXECUTION, {
            ...key,
            now: this.options.clock.now(),
          });
          return row?.live === 1;
        })
        .immediate(),
    );
  }

  async acquireLease(executionId: string, request: LeaseRequest): Promise<Lease | null> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return null;
    const now = this.options.clock.now();
    const row = await this.database.use(() =>
      this.database.get<{ generation: number; expiresAt: number }>(sql.ACQUIRE_LEASE, {
        ...key,
        owner: request.owner,
        now,
        floor: generationFloor(),
        expiresAt: now + request.ttlMs,
      }),
    );
    return row
      ? { ...key, owner: request.owner, generation: row.generation, expiresAt: row.expiresAt }
      : null;
  }

  /**
   * Takes the lease and reads the state and the cancel mark in ONE `BEGIN IMMEDIATE`
   * transaction: what `acquireLease`, `load` and `isCancelRequested` answer one after the
   * other, with one commit, and the state read under the new lease.
   */
  async claimExecution(executionId: string, request: LeaseRequest): Promise<ClaimResult> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return { kind: 'absent' };
    const now = this.options.clock.now();
    const params = { ...key, owner: request.owner, now, expiresAt: now + request.ttlMs };
    const read = await this.database.use(() =>
      this.database.transaction(this.claimInTransaction).immediate(params),
    );
    if (read.kind !== 'claimed') return read;
    const lease: Lease = { ...key, owner: request.owner, ...read.lease };
    return claimedWith(
      lease,
      read.cancelRequested,
      () =>
        assembleState(
          read.header,
          read.nodes.map((n) => [n.nodeKey, n.value] as const),
        ),
      () => this.releaseLease(executionId, { ...key, ...lease }),
    );
  }

  private readonly claimInTransaction = (
    params: ExecutionKey & { owner: string; now: number; expiresAt: number },
  ): ClaimRead => {
    const lease = this.database.get<{ generation: number; expiresAt: number }>(sql.ACQUIRE_LEASE, {
      ...params,
      floor: generationFloor(),
    });
    const key = { tenantId: params.tenantId, executionId: params.executionId };
    const stored = this.readState(key, params.now);
    if (!stored) return { kind: 'absent' };
    if (!lease) return { kind: 'held' };
    return {
      kind: 'claimed',
      lease,
      ...stored,
      cancelRequested:
        this.database.get<{ requested: number }>(sql.SELECT_CANCEL, { ...key, now: params.now })
          ?.requested === 1,
    };
  };

  async renewLease(executionId: string, lease: LeaseRenewal): Promise<boolean> {
    const key = renewalKey(executionId, lease);
    if (key === null) return false;
    const now = this.options.clock.now();
    const params = {
      ...key,
      owner: lease.owner,
      generation: lease.generation,
      now,
      expiresAt: now + lease.ttlMs,
    };
    return await this.database.use(() => this.database.run(sql.RENEW_LEASE, params) === 1);
  }

  async releaseLease(executionId: string, lease: LeaseRelease): Promise<void> {
    const key = executionKey(executionId, lease);
    if (key === null) return;
    await this.releases.add('', { ...key, owner: lease.owner, generation: lease.generation });
  }

  /** Group commit of releases: those of one turn in one transaction (one commit). */
  private readonly releases = new TickBatch<ExecutionKey & { owner: string; generation: number }>(
    (_, batch) =>
      this.database.use(() => this.database.transaction(this.releaseAll).immediate(batch)),
    { flushOn: 'turn', maxItems: 256 },
  );
  private readonly releaseAll = (
    batch: readonly (ExecutionKey & { owner: string; generation: number })[],
  ): void => {
    for (const release of batch) this.database.run(sql.RELEASE_LEASE, release);
  };

  async getLease(executionId: string, options: TenantScope = {}): Promise<Lease | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const row = await this.database.use(() =>
      this.database.get<{ owner: string; generation: number; expiresAt: number }>(
        sql.SELECT_LEASE,
        {
          ...key,
          now: this.options.clock.now(),
        },
      ),
    );
    return row ? { ...key, ...row } : null;
  }

  async requestCancel(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    return await this.database.use(
      () => this.database.run(sql.REQUEST_CANCEL, { ...key, now: this.options.clock.now() }) === 1,
    );
  }

  async isCancelRequested(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    return await this.database.use(
      () =>
        this.database.get<{ requested: number }>(sql.SELECT_CANCEL, {
          ...key,
          now: this.options.clock.now(),
        })?.requested === 1,
    );
  }

  tenants(): Promise<string[]> {
    return this.database.use(() =>
      this.database.all<{ id: string }>(sql.SELECT_TENANTS, {}).map((row) => row.id),
    );
  }

  async sweepExpired(now: number = this.options.clock.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const batch = await this.database.use((db) =>
        db
          .transaction(() => {
            const keys = this.database.all<ExecutionKey>(sql.SELECT_EXPIRED, {
              now,
              limit: SWEEP_BATCH,
            });
            // Node results go with their row (a trigger, migration 0007).
            for (const key of keys) this.database.run(sql.DELETE_ROW, key);
            return keys.length;
          })
          .immediate(),
      );
      swept += batch;
      if (batch < SWEEP_BATCH) return swept;
      // The driver is synchronous: between batches, let timers (lease renewals) and I/O run.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async close(): Promise<void> {
    // Saves and releases accepted in this turn are written first (group commit holds them).
    await Promise.all([this.saves.settle(), this.releases.settle()]);
    this.database.close();
    return Promise.resolve();
  }
}

interface ListRow {
  created_at: number;
  execution_id: string;
  summary: string;
}
