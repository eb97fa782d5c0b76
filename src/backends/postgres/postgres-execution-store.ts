import type { QueryResultRow } from 'pg';
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
import { executionKey, renewalKey } from '../../store/shared/stored-key.js';
import { assertStorableOwner, assertTtl } from '../../store/shared/stored-text.js';
import {
  executionSql,
  POSTGRES_LIST_DIALECT,
  type ExecutionSql,
} from './postgres-execution-sql.js';
import { PostgresConnection, type PostgresSource } from './postgres-connection.js';
import { migrate, quoteSchema } from './postgres-migrations.js';
import { namedRows, statementName } from './statement-name.js';
import { PostgresSaves } from './postgres-saves.js';
import { TickBatch } from '../../util/tick-batch.js';

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

/**
 * The shared SQL store (`pg`, pooled). Migrates its schema on first use; saves go through
 * the schema's `save_execution` function (migration 0003), whose row lock carries the fence
 * check, several at once when they are made together (PostgresSaves). Driver errors are classified (classify-pg-error.ts); an operation never waits
 * longer than `connectTimeoutMs` for a connection nor `statementTimeoutMs` in all. Times
 * (leases, expiry) are the store's clock (`ExecutionStoreOptions.clock`, the system clock by
 * default): keep the workers' clocks in sync (NTP), as lease TTLs assume. A pool passed in
 * stays the caller's: `close` does not end it.
 */
export class PostgresExecutionStore implements ExecutionStore {
  private readonly options: ResolvedStoreOptions;
  private readonly connection: PostgresConnection;
  private readonly sql: ExecutionSql;
  private readonly table: string;
  private readonly saves: PostgresSaves;

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
    this.saves = new PostgresSaves(this.connection, this.sql, this.options);
  }

  /**
   * Planned (encoded, validated) at once, then written with the other saves of this tick
   * (group commit, see PostgresSaves). Resolves once its own write is committed.
   */
  save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    return this.saves.save(state, options);
  }

  async load(executionId: string, options: TenantScope = {}): Promise<ExecutionState | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const rows = await this.query<{ part: number; node_key: string | null; text: string }>(
      this.sql.load,
      [key.tenantId, key.executionId, this.options.clock.now()],
    );
    const header = rows[0]?.part === 0 ? rows[0].text : null;
    if (header === null) return null;
    return assembleState(
      header,
      rows.slice(1).map((row) => [row.node_key!, row.text] as const),
    );
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    const plan = planList(query);
    if (plan.matchesNothing) return { items: [], nextCursor: null };
    const statement = listSql(plan, this.table, this.options.clock.now(), POSTGRES_LIST_DIALECT);
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
    const rows = await this.connection.transaction(async (client) => {
      const gone = await namedRows<{ live: boolean }>(client, this.sql.deleteRow, [
        key.tenantId,
        key.executionId,
        this.options.clock.now(),
      ]);
      await namedRows(client, this.sql.deleteNodes, [key.tenantId, key.executionId]);
      return gone;
    });
    return rows[0]?.live === true;
  }

  async acquireLease(executionId: string, request: LeaseRequest): Promise<Lease | null> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return null;
    const now = this.options.clock.now();
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

  /**
   * Takes the lease and reads the state and the cancel mark in ONE call of `claim_execution`
   * (migration 0006): what `acquireLease`, `load` and `isCancelRequested` answer one after the
   * other, in one round trip, with the state read under the new lease.
   */
  async claimExecution(executionId: string, request: LeaseRequest): Promise<ClaimResult> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return { kind: 'absent' };
    const now = this.options.clock.now();
    const expiresAt = now + request.ttlMs;
    const rows = await this.query<ClaimRow>(this.sql.claim, [
      key.tenantId,
      key.executionId,
      request.owner,
      now,
      expiresAt,
    ]);
    const first = rows[0];
    if (first === undefined) return { kind: 'absent' };
    if (first.o_part === -1) return { kind: 'held' };
    const lease: Lease = {
      ...key,
      owner: request.owner,
      generation: Number(first.o_generation),
      expiresAt,
    };
    return claimedWith(
      lease,
      first.o_cancel === true,
      () =>
        assembleState(
          first.o_text!,
          rows.slice(1).map((row) => [row.o_key!, row.o_text!] as const),
        ),
      () => this.releaseLease(executionId, { ...key, ...lease }),
    );
  }

  async renewLease(executionId: string, lease: LeaseRenewal): Promise<boolean> {
    const key = renewalKey(executionId, lease);
    if (key === null) return false;
    const now = this.options.clock.now();
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

  async releaseLease(executionId: string, lease: LeaseRelease): Promise<void> {
    const key = executionKey(executionId, lease);
    if (key !== null)
      await this.releases.add('', [key.tenantId, key.executionId, lease.owner, lease.generation]);
  }

  /**
   * Group commit of releases: the workers of one turn give their leases back in ONE statement
   * (one round trip and one commit instead of one each).
   */
  private readonly releases = new TickBatch<[string, string, string, number]>(
    async (_, batch) => {
      await this.count(
        this.sql.releaseLeases,
        [0, 1, 2, 3].map((c) => batch.map((r) => r[c])),
      );
    },
    { flushOn: 'turn', maxItems: 256 },
  );

  async getLease(executionId: string, options: TenantScope = {}): Promise<Lease | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const rows = await this.query<{ owner: string; generation: string; expires_at: string }>(
      this.sql.selectLease,
      [key.tenantId, key.executionId, this.options.clock.now()],
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
      (await this.count(this.sql.requestCancel, [
        key.tenantId,
        key.executionId,
        this.options.clock.now(),
      ])) === 1
    );
  }

  async isCancelRequested(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    const rows = await this.query<{ requested: boolean }>(this.sql.selectCancel, [
      key.tenantId,
      key.executionId,
      this.options.clock.now(),
    ]);
    return rows[0]?.requested === true;
  }

  async tenants(): Promise<string[]> {
    const rows = await this.query<{ id: string }>(this.sql.selectTenants, []);
    return rows.map((row) => row.id);
  }

  async sweepExpired(now: number = this.options.clock.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const rows = await this.query<{ swept: number }>(this.sql.sweep, [now, SWEEP_BATCH]);
      const batch = rows[0]?.swept ?? 0;
      swept += batch;
      if (batch < SWEEP_BATCH) return swept;
    }
  }

  async close(): Promise<void> {
    // Saves and releases accepted in this turn are written first (group commit holds them).
    await Promise.all([this.saves.settle(), this.releases.settle()]);
    return this.connection.close();
  }

  private query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    return this.connection.withClient((client) => namedRows<R>(client, text, values));
  }

  private async count(text: string, values: unknown[]): Promise<number> {
    return this.connection.withClient(
      async (client) =>
        (await client.query({ name: statementName(text), text, values })).rowCount ?? 0,
    );
  }
}

interface ClaimRow {
  o_part: number;
  o_key: string | null;
  o_text: string | null;
  o_generation: string | null;
  o_cancel: boolean | null;
}
