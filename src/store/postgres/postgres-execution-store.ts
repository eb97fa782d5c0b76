import type { PoolClient, QueryResultRow } from 'pg';
import { errorCode } from '../../errors.js';
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
import { executionKey } from '../shared/stored-key.js';
import { assertStorableOwner, assertTtl } from '../shared/stored-text.js';
import {
  executionSql,
  MAX_INLINE_VALUES,
  POSTGRES_LIST_DIALECT,
  type ExecutionSql,
} from './postgres-execution-sql.js';
import {
  inTransaction,
  PostgresConnection,
  type PostgresSource,
} from '../../backends/postgres/postgres-connection.js';
import { migrate, quoteSchema } from '../../backends/postgres/postgres-migrations.js';
import { statementName } from '../../backends/postgres/statement-name.js';

export interface PostgresStoreOptions extends ExecutionStoreOptions {
  /** Where the tables live (created if missing, default `plaita`): tests isolate themselves with one each. */
  schema?: string;
  /** Server statement_timeout and the client-side limit on one operation (default 30000). */
  statementTimeoutMs?: number;
  /** `application_name` of the pool's connections (default `plaita`). Ignored for a given pool. */
  applicationName?: string;
  /** Connections in the pool (default 10). Ignored for a given pool. */
  poolSize?: number;
}

const SWEEP_BATCH = 1000;
/** SQLSTATE lock_not_available: the save's short lock_timeout ran out (see callSave). */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The shared SQL store (`pg`, pooled). Migrates its schema on first use; every save is one
 * call of the schema's `save_execution` function (migration 0003), whose row lock carries the
 * fence check. Driver errors are classified (classify-pg-error.ts); an operation never waits
 * longer than `connectTimeoutMs` for a connection nor `statementTimeoutMs` in all. Times (leases, expiry) are this process's
 * `Date.now()`: keep the workers' clocks in sync (NTP), as lease TTLs assume. A pool passed in
 * stays the caller's: `close` does not end it.
 */
export class PostgresExecutionStore implements ExecutionStore {
  private readonly options: ResolvedStoreOptions;
  private readonly connection: PostgresConnection;
  private readonly sql: ExecutionSql;
  private readonly table: string;

  constructor(source: PostgresSource, options: PostgresStoreOptions = {}) {
    this.options = resolveStoreOptions(options);
    const schema = options.schema ?? 'plaita';
    const quoted = quoteSchema(schema);
    this.sql = executionSql(quoted);
    this.table = `${quoted}.executions`;
    this.connection = new PostgresConnection(
      source,
      {
        connectTimeoutMs: this.options.connectTimeoutMs,
        statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
        applicationName: options.applicationName ?? 'plaita',
        poolSize: options.poolSize ?? 10,
        requiredBy: 'PostgresExecutionStore',
      },
      (client) => migrate(client, schema),
    );
  }

  /**
   * One call of `save_execution` (see its migration): one round trip, committed on return.
   * An incremental save of an execution that is not stored (or expired) comes back `absent`,
   * having written nothing, and is sent again whole.
   */
  async save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    const now = Date.now();
    let plan = planSave(state, options, this.options, now);
    let reply = await this.callSave(plan, now);
    if (reply.outcome === 'absent') {
      plan = asFullRewrite(state, plan, this.options);
      reply = await this.callSave(plan, now);
    }
    switch (reply.outcome) {
      case 'saved':
        return;
      case 'fenced':
        throw fenceRejected(
          plan.row.executionId,
          reply.generation === null ? null : Number(reply.generation),
          plan.fence ?? 0,
        );
      case 'too_large':
        return rejectOversized(
          plan,
          (reply.node_keys ?? []).map(
            (key, i) => [fromNodeKey(key), reply.node_bytes![i]!] as const,
          ),
          this.options.maxStateBytes,
        );
      default:
        throw new Error(`save_execution answered ${String(reply.outcome)} to a full rewrite`);
    }
  }

  async load(executionId: string, options: TenantScope = {}): Promise<ExecutionState | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const rows = await this.query<{ part: number; node_key: string | null; text: string }>(
      this.sql.load,
      [key.tenantId, key.executionId, Date.now()],
    );
    const header = rows[0]?.part === 0 ? rows[0].text : null;
    if (header === null) return null;
    return assembleState(
      header,
      rows.slice(1).map((row) => [fromNodeKey(row.node_key!), row.text] as const),
    );
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    const plan = planList(query);
    if (plan.matchesNothing) return { items: [], nextCursor: null };
    const statement = listSql(plan, this.table, Date.now(), POSTGRES_LIST_DIALECT);
    const rows = await this.query<{ created_at: string; execution_id: string; summary: string }>(
      statement.text,
      statement.values,
    );
    return toPage(
      rows.map((r) => ({
        createdAt: Number(r.created_at),
        executionId: r.execution_id,
        summary: decodeSummary(r.summary),
      })),
      plan.limit,
    );
  }

  async delete(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    const rows = await this.query<{ live: boolean }>(this.sql.delete, [
      key.tenantId,
      key.executionId,
      Date.now(),
    ]);
    return rows[0]?.live === true;
  }

  async acquireLease(executionId: string, request: LeaseRequest): Promise<Lease | null> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return null;
    const now = Date.now();
    const rows = await this.query<{ generation: string; expires_at: string }>(
      this.sql.acquireLease,
      [key.tenantId, key.executionId, request.owner, now, now + request.ttlMs],
    );
    const row = rows[0];
    return row
      ? {
          ...key,
          owner: request.owner,
          generation: Number(row.generation),
          expiresAt: Number(row.expires_at),
        }
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
    return (
      (await this.count(this.sql.renewLease, [
        key.tenantId,
        key.executionId,
        lease.owner,
        lease.generation,
        now,
        now + lease.ttlMs,
      ])) === 1
    );
  }

  async releaseLease(
    executionId: string,
    lease: { owner: string; generation: number } & TenantScope,
  ): Promise<void> {
    const key = executionKey(executionId, lease);
    if (key !== null)
      await this.count(this.sql.releaseLease, [
        key.tenantId,
        key.executionId,
        lease.owner,
        lease.generation,
      ]);
  }

  async getLease(executionId: string, options: TenantScope = {}): Promise<Lease | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const rows = await this.query<{ owner: string; generation: string; expires_at: string }>(
      this.sql.selectLease,
      [key.tenantId, key.executionId, Date.now()],
    );
    const row = rows[0];
    return row
      ? {
          ...key,
          owner: row.owner,
          generation: Number(row.generation),
          expiresAt: Number(row.expires_at),
        }
      : null;
  }

  async requestCancel(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    return (
      key !== null &&
      (await this.count(this.sql.requestCancel, [key.tenantId, key.executionId, Date.now()])) === 1
    );
  }

  async isCancelRequested(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    const rows = await this.query<{ requested: boolean }>(this.sql.selectCancel, [
      key.tenantId,
      key.executionId,
      Date.now(),
    ]);
    return rows[0]?.requested === true;
  }

  async sweepExpired(now: number = Date.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const rows = await this.query<{ swept: number }>(this.sql.sweep, [now, SWEEP_BATCH]);
      const batch = rows[0]?.swept ?? 0;
      swept += batch;
      if (batch < SWEEP_BATCH) return swept;
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /**
   * One round trip: the call alone, committed as it returns. If the execution's row is locked
   * by another transaction, the call gives up after 10 ms (55P03, nothing written) and is sent
   * again inside BEGIN … COMMIT, waiting: a call that waits must not commit on its own, or a
   * save whose connection was lost while it waited would still land after the caller was told
   * it failed.
   */
  private callSave(plan: SavePlan, now: number): Promise<SaveReply> {
    const nodes = plan.checkpoint.nodes;
    const text = this.sql.save(nodes.length);
    const values = (wait: boolean): unknown[] => [
      ...rowValues(plan),
      plan.checkpoint.fullRewrite,
      plan.fence,
      now,
      this.options.maxStateBytes,
      plan.removedNodeIds.map(toNodeKey),
      nodes.map((n) => toNodeKey(n.nodeId)),
      nodes.map((n) => n.bytes),
      plan.writtenNodeBytes,
      wait,
      ...(nodes.length > MAX_INLINE_VALUES ? [nodes.map((n) => n.text)] : nodes.map((n) => n.text)),
    ];
    return this.connection.withClient(async (client) => {
      try {
        return (await run<SaveReply>(client, text, values(false)))[0]!;
      } catch (error) {
        if (errorCode(error) !== LOCK_NOT_AVAILABLE) throw error;
      }
      return inTransaction(
        client,
        async () => (await run<SaveReply>(client, text, values(true)))[0]!,
      );
    });
  }

  private query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    return this.connection.withClient((client) => run<R>(client, text, values));
  }

  private async count(text: string, values: unknown[]): Promise<number> {
    return this.connection.withClient(
      async (client) =>
        (await client.query({ name: statementName(text), text, values })).rowCount ?? 0,
    );
  }
}

async function run<R extends QueryResultRow>(
  client: PoolClient,
  text: string,
  values: unknown[],
): Promise<R[]> {
  return (await client.query<R>({ name: statementName(text), text, values })).rows;
}

/** $1…$14: the key, then the row's columns, in the statements' order. */
function rowValues(plan: SavePlan): unknown[] {
  const r = plan.row;
  return [
    r.tenantId,
    r.executionId,
    r.flowId,
    r.flowVersion,
    r.flowHash,
    r.status,
    r.version,
    r.createdAt,
    r.updatedAt,
    r.endedAt,
    r.expiresAt,
    r.header,
    r.headerBytes,
    r.summary,
  ];
}

/** What `save_execution` answers (bigint comes back as text). */
interface SaveReply {
  outcome: 'saved' | 'fenced' | 'absent' | 'too_large';
  generation: string | null;
  node_keys: string[] | null;
  node_bytes: number[] | null;
}
