import type { QueryResultRow } from 'pg';
import { FlowVersionConflictError } from '../../errors/flow-definition-errors.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_TENANT,
  type TenantScope,
} from '../../store/execution-store.js';
import type { FlowStore, StoredFlow } from '../../store/flow-store.js';
import { flowRecord, lookupTenant, putTenant, storedFlow } from '../../store/shared/flow-record.js';
import { PostgresConnection, type PostgresSource } from './postgres-connection.js';
import { migrate, quoteSchema } from './postgres-migrations.js';
import { statementName } from './statement-name.js';
import { type Clock, systemClock } from '../../util/clock.js';

export interface PostgresFlowStoreOptions {
  /** The execution store's schema (default `plaita`). */
  schema?: string;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  poolSize?: number;
  /** The store's "now", for `createdAt` (default the system clock). */
  clock?: Clock;
}

interface FlowRow {
  flow_hash: string;
  flow_id: string | null;
  version: string | null;
  document: string;
  created_at: string;
}

/**
 * Flow definitions beside the executions, per tenant, immutable once written. Pass the
 * execution store's `{pool}` to share its connections; same schema, same migrations.
 */
export class PostgresFlowStore implements FlowStore {
  readonly #clock: Clock;
  private readonly connection: PostgresConnection;
  private readonly sql: {
    insert: string;
    byHash: string;
    byVersion: string;
    latest: string;
    pinned: string;
  };

  constructor(source: PostgresSource, options: PostgresFlowStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    const schema = options.schema ?? 'plaita';
    const flows = `${quoteSchema(schema)}.flows`;
    const executions = `${quoteSchema(schema)}.executions`;
    const columns = 'flow_hash, flow_id, version, document::text AS document, created_at';
    this.sql = {
      // DO NOTHING on either uniqueness, within the tenant: same hash (idempotent) or same
      // flow_id + version (a conflict).
      insert: `INSERT INTO ${flows} (tenant_id, flow_hash, flow_id, version, document, created_at) VALUES ($1, $2, $3, $4, $5::json, $6) ON CONFLICT DO NOTHING`,
      byHash: `SELECT ${columns} FROM ${flows} WHERE tenant_id = $1 AND flow_hash = $2`,
      byVersion: `SELECT ${columns} FROM ${flows} WHERE tenant_id = $1 AND flow_id = $2 AND version = $3`,
      latest: `SELECT ${columns} FROM ${flows} WHERE tenant_id = $1 AND flow_id = $2 ORDER BY seq DESC LIMIT 1`,
      // A `default` definition (from before flows had tenants) that an execution of $1 pins.
      pinned: `SELECT ${columns} FROM ${flows} WHERE tenant_id = $3 AND flow_hash = $2 AND EXISTS (SELECT 1 FROM ${executions} WHERE tenant_id = $1 AND flow_hash = $2)`,
    };
    this.connection = new PostgresConnection(
      source,
      {
        connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
        applicationName: options.applicationName ?? 'plaita',
        poolSize: options.poolSize ?? 4,
        requiredBy: 'PostgresFlowStore',
      },
      (client) => migrate(client, schema),
    );
  }

  async put(document: Record<string, unknown>, scope: TenantScope): Promise<StoredFlow> {
    const record = flowRecord(document);
    const tenantId = putTenant(scope);
    const row = await this.connection.withClient(async (client) => {
      await client.query({
        name: statementName(this.sql.insert),
        text: this.sql.insert,
        values: [
          tenantId,
          record.flowHash,
          record.flowId,
          record.version,
          record.text,
          this.#clock.now(),
        ],
      });
      // Read after the insert settled (committed, or conflicted with a committed row).
      const stored = (
        await client.query<FlowRow>({
          name: statementName(this.sql.byHash),
          text: this.sql.byHash,
          values: [tenantId, record.flowHash],
        })
      ).rows[0];
      if (stored === undefined) {
        throw new FlowVersionConflictError(
          `flow ${record.flowId} version ${record.version} is already published with different content`,
        );
      }
      return stored;
    });
    return toStored(row);
  }

  async getByHash(flowHash: string, scope: TenantScope): Promise<StoredFlow | null> {
    const tenantId = lookupTenant(flowHash, null, scope);
    if (tenantId === null) return null;
    const own = await this.one(this.sql.byHash, [tenantId, flowHash]);
    if (own !== null || tenantId === DEFAULT_TENANT) return own;
    return this.one(this.sql.pinned, [tenantId, flowHash, DEFAULT_TENANT]);
  }

  async getByVersion(
    flowId: string,
    version: string | null,
    scope: TenantScope,
  ): Promise<StoredFlow | null> {
    const tenantId = lookupTenant(flowId, version, scope);
    if (tenantId === null) return null;
    return version === null
      ? this.one(this.sql.latest, [tenantId, flowId])
      : this.one(this.sql.byVersion, [tenantId, flowId, version]);
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  private async one(text: string, values: unknown[]): Promise<StoredFlow | null> {
    const rows = await this.connection.withClient(
      async (client) =>
        (await client.query<FlowRow & QueryResultRow>({ name: statementName(text), text, values }))
          .rows,
    );
    return rows[0] ? toStored(rows[0]) : null;
  }
}

function toStored(row: FlowRow): StoredFlow {
  return storedFlow(row.flow_hash, row.flow_id, row.version, row.document, Number(row.created_at));
}
