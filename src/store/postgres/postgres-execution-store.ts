import type { PoolClient, QueryResultRow } from 'pg';
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
import { decodeSummary } from '../sql/execution-row.js';
import { fenceRejected } from '../sql/fence.js';
import { planList, toPage } from '../sql/list-plan.js';
import { listSql } from '../sql/list-sql.js';
import { fromNodeKey, toNodeKey } from '../sql/node-key.js';
import { asFullRewrite, planSave, rejectOversized, type SavePlan } from '../sql/save-plan.js';
import { resolveStoreOptions, type ResolvedStoreOptions } from '../sql/store-options.js';
import { executionKey, type ExecutionKey } from '../sql/stored-key.js';
import { assertStorableOwner, assertTtl } from '../sql/stored-text.js';
import {
  executionSql,
  POSTGRES_LIST_DIALECT,
  type ExecutionSql,
} from './postgres-execution-sql.js';
import { PostgresConnection, type PostgresSource } from './postgres-connection.js';
import { migrate, quoteSchema } from './postgres-migrations.js';
import { statementName } from './statement-name.js';

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
/** Four bind parameters per node row, under PostgreSQL's 65535 per statement. */
const MAX_NODES_PER_STATEMENT = 16_000;

/**
 * The shared SQL store (`pg`, pooled). Migrates its schema on first use; every save is one
 * transaction whose conditional UPDATE carries the fence check. Driver errors are classified
 * (classify-pg-error.ts); an operation never waits longer than `connectTimeoutMs` for a
 * connection nor `statementTimeoutMs` in all. Times (leases, expiry) are this process's
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
      },
      (client) => migrate(client, schema),
    );
  }

  async save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    const now = Date.now();
    const plan = planSave(state, options, this.options, now);
    await this.connection.transaction((client) => this.write(client, state, plan, now));
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
   * Inside the save transaction: the conditional UPDATE (row lock, fence, header), or the INSERT
   * of a new row; then one statement for the nodes; then the size check before COMMIT (over the
   * limit, the transaction rolls back: nothing written).
   */
  private async write(
    client: PoolClient,
    state: ExecutionState,
    plan: SavePlan,
    now: number,
  ): Promise<void> {
    const key = { tenantId: plan.row.tenantId, executionId: plan.row.executionId };
    const updated = await run<{ state_bytes: string; first_seq: number }>(
      client,
      this.sql.updateExecution,
      [...rowValues(plan), ...saveValues(plan), now],
    );
    const row = updated[0];
    if (row === undefined) {
      if (plan.fence !== null) {
        const current = await run<{ generation: string }>(client, this.sql.selectGeneration, [
          key.tenantId,
          key.executionId,
          now,
        ]);
        throw fenceRejected(
          key.executionId,
          current[0] ? Number(current[0].generation) : null,
          plan.fence,
        );
      }
      const full = asFullRewrite(state, plan, this.options);
      await run(client, this.sql.insertExecution, [
        ...rowValues(full),
        full.writtenNodeBytes,
        full.checkpoint.nodes.length,
        now,
      ]);
      await this.writeNodes(client, key, full, 0);
      return;
    }
    const total =
      (await this.writeNodes(client, key, plan, row.first_seq)) ?? Number(row.state_bytes);
    if (total > this.options.maxStateBytes) {
      const sizes = await run<{ node_key: string; bytes: number }>(
        client,
        this.sql.selectNodeSizes,
        [key.tenantId, key.executionId],
      );
      rejectOversized(
        plan,
        sizes.map((s) => [fromNodeKey(s.node_key), s.bytes] as const),
        this.options.maxStateBytes,
      );
    }
  }

  /** One statement (a full rewrite past 16,000 nodes: a few); returns an incremental save's new size total. */
  private async writeNodes(
    client: PoolClient,
    key: ExecutionKey,
    plan: SavePlan,
    firstSeq: number,
  ): Promise<number | undefined> {
    const nodes = plan.checkpoint.nodes;
    const keyValues = [key.tenantId, key.executionId];
    const rows = (from: number, to: number): unknown[] =>
      nodes
        .slice(from, to)
        .flatMap((node, i) => [toNodeKey(node.nodeId), firstSeq + from + i, node.text, node.bytes]);
    if (plan.checkpoint.fullRewrite) {
      const first = Math.min(nodes.length, MAX_NODES_PER_STATEMENT);
      await run(client, this.sql.replaceNodes(first), [
        ...keyValues,
        nodes.map((n) => toNodeKey(n.nodeId)),
        ...rows(0, first),
      ]);
      for (let from = first; from < nodes.length; from += MAX_NODES_PER_STATEMENT) {
        const to = Math.min(nodes.length, from + MAX_NODES_PER_STATEMENT);
        await run(client, this.sql.upsertNodes(to - from), [...keyValues, ...rows(from, to)]);
      }
      return undefined;
    }
    if (nodes.length === 0 && plan.removedNodeIds.length === 0) return undefined;
    if (nodes.length > MAX_NODES_PER_STATEMENT)
      throw new RangeError(
        `an incremental save changes at most ${MAX_NODES_PER_STATEMENT} nodes; save the state whole instead`,
      );
    const removed = plan.removedNodeIds.map(toNodeKey);
    const changed = [...removed, ...nodes.map((n) => toNodeKey(n.nodeId))];
    const result = await run<{ state_bytes: string }>(client, this.sql.changeNodes(nodes.length), [
      ...keyValues,
      changed,
      removed,
      plan.writtenNodeBytes,
      ...rows(0, nodes.length),
    ]);
    return Number(result[0]!.state_bytes);
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

/** $15…$18 of the UPDATE: full rewrite?, bytes of the nodes written, fence, nodes written. */
function saveValues(plan: SavePlan): unknown[] {
  return [
    plan.checkpoint.fullRewrite,
    plan.writtenNodeBytes,
    plan.fence,
    plan.checkpoint.nodes.length,
  ];
}
