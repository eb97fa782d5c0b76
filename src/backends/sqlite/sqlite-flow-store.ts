import { FlowVersionConflictError } from '../../errors/flow-definition-errors.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_TENANT,
  type TenantScope,
} from '../../store/execution-store.js';
import type { FlowStore, StoredFlow } from '../../store/flow-store.js';
import { flowRecord, lookupTenant, putTenant, storedFlow } from '../../store/shared/flow-record.js';
import { SqliteDatabase } from './sqlite-database.js';
import { type Clock, systemClock } from '../../util/clock.js';

export interface SqliteFlowStoreOptions {
  /** The same file as the SqliteExecutionStore's (its own connection; WAL lets them share). */
  path: string;
  /** Busy timeout (default 5000). */
  connectTimeoutMs?: number;
  /** The store's "now", for `createdAt` (default the system clock). */
  clock?: Clock;
}

interface FlowRow {
  flowHash: string;
  flowId: string | null;
  version: string | null;
  document: string;
  createdAt: number;
}

const COLUMNS =
  'flow_hash AS flowHash, flow_id AS flowId, version, document, created_at AS createdAt';
const INSERT = `INSERT INTO flows (tenant_id, flow_hash, flow_id, version, document, created_at) VALUES (@tenantId, @flowHash, @flowId, @version, @text, @createdAt)
ON CONFLICT DO NOTHING`;
const BY_HASH = `SELECT ${COLUMNS} FROM flows WHERE tenant_id = ? AND flow_hash = ?`;
const BY_VERSION = `SELECT ${COLUMNS} FROM flows WHERE tenant_id = ? AND flow_id = ? AND version = ?`;
const LATEST = `SELECT ${COLUMNS} FROM flows WHERE tenant_id = ? AND flow_id = ? ORDER BY seq DESC LIMIT 1`;
/** A `default` definition (from before flows had tenants) that an execution of the tenant pins. */
const PINNED = `SELECT ${COLUMNS} FROM flows WHERE tenant_id = @legacyTenant AND flow_hash = @flowHash
AND EXISTS (SELECT 1 FROM executions WHERE tenant_id = @tenantId AND flow_hash = @flowHash)`;

/** Flow definitions in the SQLite file, per tenant, immutable once written (docs/durable-contract.md §3). */
export class SqliteFlowStore implements FlowStore {
  readonly #clock: Clock;
  private readonly database: SqliteDatabase;

  constructor(options: SqliteFlowStoreOptions) {
    this.#clock = options.clock ?? systemClock;
    this.database = new SqliteDatabase(
      options.path,
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      'SqliteFlowStore',
    );
  }

  async put(document: Record<string, unknown>, scope: TenantScope): Promise<StoredFlow> {
    const record = flowRecord(document);
    const tenantId = putTenant(scope);
    const row = await this.database.use((db) =>
      db
        .transaction(() => {
          // DO NOTHING on either uniqueness, within the tenant: same hash (idempotent) or same
          // flow_id + version (a conflict).
          this.database
            .statement(INSERT)
            .run({ ...record, tenantId, createdAt: this.#clock.now() });
          const stored = this.database.statement(BY_HASH).get(tenantId, record.flowHash) as
            FlowRow | undefined;
          if (stored === undefined) {
            throw new FlowVersionConflictError(
              `flow ${record.flowId} version ${record.version} is already published with different content`,
            );
          }
          return stored;
        })
        .immediate(),
    );
    return toStored(row);
  }

  async getByHash(flowHash: string, scope: TenantScope): Promise<StoredFlow | null> {
    const tenantId = lookupTenant(flowHash, null, scope);
    if (tenantId === null) return null;
    const row = await this.database.use(
      () =>
        (this.database.statement(BY_HASH).get(tenantId, flowHash) ??
          (tenantId === DEFAULT_TENANT
            ? undefined
            : this.database
                .statement(PINNED)
                .get({ tenantId, flowHash, legacyTenant: DEFAULT_TENANT }))) as FlowRow | undefined,
    );
    return row ? toStored(row) : null;
  }

  async getByVersion(
    flowId: string,
    version: string | null,
    scope: TenantScope,
  ): Promise<StoredFlow | null> {
    const tenantId = lookupTenant(flowId, version, scope);
    if (tenantId === null) return null;
    const row = await this.database.use(
      () =>
        (version === null
          ? this.database.statement(LATEST).get(tenantId, flowId)
          : this.database.statement(BY_VERSION).get(tenantId, flowId, version)) as
          FlowRow | undefined,
    );
    return row ? toStored(row) : null;
  }

  close(): Promise<void> {
    this.database.close();
    return Promise.resolve();
  }
}

function toStored(row: FlowRow): StoredFlow {
  return storedFlow(row.flowHash, row.flowId, row.version, row.document, row.createdAt);
}
