import type { ExecutionState } from '../../state/execution-state.js';
import { assembleState } from '../checkpoint-parts.js';
import type {
  ExecutionStore,
  ExecutionStoreOptions,
  Lease,
  LeaseRequest,
  ListPage,
  ListQuery,
  SaveOptions,
  TenantScope,
} from '../execution-store.js';
import { decodeSummary } from '../shared/execution-row.js';
import { fenceRejected } from '../shared/fence.js';
import { planList, toPage } from '../shared/list-plan.js';
import { listSql } from '../sql/list-sql.js';
import { fromNodeKey, toNodeKey } from '../shared/node-key.js';
import { asFullRewrite, planSave, rejectOversized, type SavePlan } from '../shared/save-plan.js';
import { resolveStoreOptions, type ResolvedStoreOptions } from '../shared/store-options.js';
import { executionKey, type ExecutionKey } from '../shared/stored-key.js';
import { assertStorableOwner, assertTtl } from '../shared/stored-text.js';
import * as sql from './sqlite-execution-sql.js';
import { SqliteDatabase } from '../../backends/sqlite/sqlite-database.js';
import { ItemFailure, TickBatch } from '../../util/tick-batch.js';

export interface SqliteExecutionStoreOptions extends ExecutionStoreOptions {
  /** The database file (created if missing), or `:memory:`. */
  path: string;
}

/** Rows removed per transaction by the sweep, so it never holds the write lock for long. */
const SWEEP_BATCH = 500;

/** Most saves committed by one transaction: bounds how long one batch holds the write lock. */
const GROUP_COMMIT_MAX = 64;

interface PlannedSave {
  state: ExecutionState;
  plan: SavePlan;
  now: number;
}

/**
 * The embedded default store: one SQLite file (better-sqlite3, WAL), safe to share between
 * processes on one machine. The saves of one tick share one `BEGIN IMMEDIATE` transaction; a file locked by
 * another writer for longer than `connectTimeoutMs` (the busy timeout) rejects with
 * StoreUnavailableError. Times (leases, expiry) are this process's `Date.now()`.
 */
export class SqliteExecutionStore implements ExecutionStore {
  private readonly options: ResolvedStoreOptions;
  private readonly database: SqliteDatabase;

  constructor(options: SqliteExecutionStoreOptions) {
    this.options = resolveStoreOptions(options);
    this.database = new SqliteDatabase(
      options.path,
      this.options.connectTimeoutMs,
      'SqliteExecutionStore',
    );
  }

  /**
   * Planned (encoded, validated) at once; written with the other saves of this tick in ONE
   * `BEGIN IMMEDIATE` transaction (group commit), each inside its own savepoint so a fenced
   * or oversized save rolls back alone. It resolves once that transaction has committed.
   */
  async save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    const now = Date.now();
    const plan = planSave(state, options, this.options, now);
    return this.saves.add('', { state, plan, now });
  }

  private readonly saves = new TickBatch<PlannedSave>((_, batch) => this.saveBatch(batch), {
    maxItems: GROUP_COMMIT_MAX,
    flushOn: 'turn',
  });

  /**
   * One transaction for the batch. A save that is refused (fenced out, over the size limit) is
   * refused before it writes anything, so it needs no savepoint: it fails alone and the others
   * commit. Any other failure rolls the batch back, and each save is then tried on its own.
   */
  private async saveBatch(batch: readonly PlannedSave[]): Promise<(ItemFailure | undefined)[]> {
    try {
      return await this.database.use(() =>
        this.database.transaction(this.writeBatch).immediate(batch),
      );
    } catch (error) {
      if (batch.length === 1) throw error;
      return Promise.all(
        batch.map((item) =>
          this.database
            .use(() => this.database.transaction(this.writeBatch).immediate([item]))
            .then(
              ([result]) => result,
              (failure: unknown) => new ItemFailure(failure),
            ),
        ),
      );
    }
  }

  private readonly writeBatch = (batch: readonly PlannedSave[]): (ItemFailure | undefined)[] =>
    batch.map(({ state, plan, now }) => {
      const refusal = this.write(state, plan, now);
      return refusal && new ItemFailure(refusal);
    });

  async load(executionId: string, options: TenantScope = {}): Promise<ExecutionState | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const stored = await this.database.use((db) =>
      db.transaction(() => {
        const row = this.get<{ header: string }>(sql.SELECT_HEADER, { ...key, now: Date.now() });
        return (
          row && {
            header: row.header,
            nodes: this.all<{ nodeKey: string; value: string }>(sql.SELECT_NODES, key),
          }
        );
      })(),
    );
    return stored
      ? assembleState(
          stored.header,
          stored.nodes.map((n) => [fromNodeKey(n.nodeKey), n.value] as const),
        )
      : null;
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    const plan = planList(query);
    if (plan.matchesNothing) return { items: [], nextCursor: null };
    const statement = listSql(plan, 'executions', Date.now(), sql.SQLITE_LIST_DIALECT);
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
          const row = this.get<{ live: number }>(sql.DELETE_EXECUTION, { ...key, now: Date.now() });
          this.run(sql.DELETE_NODES, key);
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
    const now = Date.now();
    const row = await this.database.use(() =>
      this.get<{ generation: number; expiresAt: number }>(sql.ACQUIRE_LEASE, {
        ...key,
        owner: request.owner,
        now,
        expiresAt: now + request.ttlMs,
      }),
    );
    return row
      ? { ...key, owner: request.owner, generation: row.generation, expiresAt: row.expiresAt }
      : null;
  }

  async renewLease(
    executionId: string,
    lease: { owner: string; generation: number; ttlMs: number } & TenantScope,
  ): Promise<boolean> {
    assertTtl(lease.ttlMs);
    const key = executionKey(executionId, lease);
    if (key === null) return false;
    const now = Date.now();
    const params = {
      ...key,
      owner: lease.owner,
      generation: lease.generation,
      now,
      expiresAt: now + lease.ttlMs,
    };
    return await this.database.use(() => this.run(sql.RENEW_LEASE, params) === 1);
  }

  async releaseLease(
    executionId: string,
    lease: { owner: string; generation: number } & TenantScope,
  ): Promise<void> {
    const key = executionKey(executionId, lease);
    if (key === null) return;
    await this.database.use(() =>
      this.run(sql.RELEASE_LEASE, { ...key, owner: lease.owner, generation: lease.generation }),
    );
  }

  async getLease(executionId: string, options: TenantScope = {}): Promise<Lease | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const row = await this.database.use(() =>
      this.get<{ owner: string; generation: number; expiresAt: number }>(sql.SELECT_LEASE, {
        ...key,
        now: Date.now(),
      }),
    );
    return row ? { ...key, ...row } : null;
  }

  async requestCancel(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    return await this.database.use(
      () => this.run(sql.REQUEST_CANCEL, { ...key, now: Date.now() }) === 1,
    );
  }

  async isCancelRequested(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    return await this.database.use(
      () =>
        this.get<{ requested: number }>(sql.SELECT_CANCEL, { ...key, now: Date.now() })
          ?.requested === 1,
    );
  }

  async sweepExpired(now: number = Date.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const batch = await this.database.use((db) =>
        db
          .transaction(() => {
            const keys = this.all<ExecutionKey>(sql.SELECT_EXPIRED, { now, limit: SWEEP_BATCH });
            for (const key of keys) {
              this.run(sql.DELETE_NODES, key);
              this.run(sql.DELETE_ROW, key);
            }
            return keys.length;
          })
          .immediate(),
      );
      swept += batch;
      if (batch < SWEEP_BATCH) return swept;
    }
  }

  close(): Promise<void> {
    this.database.close();
    return Promise.resolve();
  }

  /**
   * Inside the save transaction. An unfenced full rewrite is one upsert (a new row, a live one,
   * or an expired one replaced). Otherwise the conditional UPDATE — first the forms that leave
   * indexed columns alone, as they rarely change — then the nodes; when no form matched,
   * {@link rejectOrInsert} finds out why. Returns the refusal of a save that wrote nothing.
   */
  private write(state: ExecutionState, plan: SavePlan, now: number): Error | undefined {
    if (plan.fence === null && plan.checkpoint.fullRewrite) return this.insert(plan, now);
    const params = saveParams(plan, now, this.options.maxStateBytes);
    const shape = saveShape(plan);
    if (!sql.UPDATES.some((update) => this.run(update[shape], params) === 1))
      return this.rejectOrInsert(state, plan, now);
    this.writeNodes(plan);
    return undefined;
  }

  /** No UPDATE matched: absent (a new row, unless fenced), fenced out, or too large. */
  private rejectOrInsert(state: ExecutionState, plan: SavePlan, now: number): Error | undefined {
    const key = { tenantId: plan.row.tenantId, executionId: plan.row.executionId };
    const row = this.get<{ generation: number }>(sql.SELECT_GENERATION, { ...key, now });
    if (plan.fence !== null && row?.generation !== plan.fence)
      return fenceRejected(key.executionId, row?.generation ?? null, plan.fence);
    if (row === undefined) return this.insert(asFullRewrite(state, plan, this.options), now);
    // Live and not fenced out: the UPDATE refused the new size total.
    const sizes = this.all<{ nodeKey: string; bytes: number }>(sql.SELECT_NODE_SIZES, key);
    try {
      rejectOversized(
        plan,
        sizes.map((s) => [fromNodeKey(s.nodeKey), s.bytes] as const),
        this.options.maxStateBytes,
      );
    } catch (refusal) {
      return refusal as Error;
    }
  }

  private insert(full: SavePlan, now: number): undefined {
    this.run(sql.INSERT_EXECUTION, saveParams(full, now, this.options.maxStateBytes));
    this.writeNodes(full);
    return undefined;
  }

  private writeNodes(plan: SavePlan): void {
    const { tenantId, executionId } = plan.row;
    if (plan.checkpoint.fullRewrite) this.run(sql.DELETE_NODES, { tenantId, executionId });
    for (const id of plan.removedNodeIds)
      this.run(sql.DELETE_NODE, { tenantId, executionId, nodeKey: toNodeKey(id) });
    const nodes = plan.checkpoint.nodes;
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index]!;
      this.run(sql.UPSERT_NODE, {
        tenantId,
        executionId,
        nodeKey: toNodeKey(node.nodeId),
        nodeCount: nodes.length,
        index,
        value: node.text,
        bytes: node.bytes,
      });
    }
  }

  private get<T>(text: string, params: object): T | undefined {
    return this.database.statement(text).get(params) as T | undefined;
  }

  private all<T>(text: string, params: object): T[] {
    return this.database.statement(text).all(params) as T[];
  }

  private run(text: string, params: object): number {
    return this.database.statement(text).run(params).changes;
  }
}

interface ListRow {
  created_at: number;
  execution_id: string;
  summary: string;
}

/** Every parameter of the save statements, in one object of a fixed shape. */
function saveParams(plan: SavePlan, now: number, maxStateBytes: number): Record<string, unknown> {
  const { row, checkpoint } = plan;
  const keys = checkpoint.fullRewrite ? [] : changedKeys(plan);
  return {
    tenantId: row.tenantId,
    executionId: row.executionId,
    flowId: row.flowId,
    flowVersion: row.flowVersion,
    flowHash: row.flowHash,
    status: row.status,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    endedAt: row.endedAt,
    expiresAt: row.expiresAt,
    header: row.header,
    headerBytes: row.headerBytes,
    summary: row.summary,
    writtenBytes: plan.writtenNodeBytes,
    nodeCount: checkpoint.nodes.length,
    changedKey: keys.length === 1 ? keys[0] : null,
    changedKeys: keys.length > 1 ? JSON.stringify(keys) : null,
    fence: plan.fence,
    maxStateBytes,
    now,
  };
}

/** Which UPDATE fits the save (see SaveShape). */
function saveShape(plan: SavePlan): sql.SaveShape {
  if (plan.checkpoint.fullRewrite) return 'full';
  const changed = plan.removedNodeIds.length + plan.checkpoint.nodes.length;
  return changed === 0 ? 'none' : changed === 1 ? 'one' : 'many';
}

/** The stored keys of the nodes an incremental save replaces or removes. */
function changedKeys(plan: SavePlan): string[] {
  const keys: string[] = [];
  for (const id of plan.removedNodeIds) keys.push(toNodeKey(id));
  for (const node of plan.checkpoint.nodes) keys.push(toNodeKey(node.nodeId));
  return keys;
}
