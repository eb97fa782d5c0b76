import { FlowVersionConflictError } from '../../errors.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../execution-store.js';
import type { FlowStore, StoredFlow } from '../flow-store.js';
import { flowRecord, storedFlow } from '../sql/flow-record.js';
import { isStorableText } from '../sql/stored-text.js';
import { SqliteDatabase } from './sqlite-database.js';

export interface SqliteFlowStoreOptions {
  /** The same file as the SqliteExecutionStore's (its own connection; WAL lets them share). */
  path: string;
  /** Busy timeout (default 5000). */
  connectTimeoutMs?: number;
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
const INSERT = `INSERT INTO flows (flow_hash, flow_id, version, document, created_at) VALUES (@flowHash, @flowId, @version, @text, @createdAt)
ON CONFLICT DO NOTHING`;
const BY_HASH = `SELECT ${COLUMNS} FROM flows WHERE flow_hash = ?`;
const BY_VERSION = `SELECT ${COLUMNS} FROM flows WHERE flow_id = ? AND version = ?`;
const LATEST = `SELECT ${COLUMNS} FROM flows WHERE flow_id = ? ORDER BY seq DESC LIMIT 1`;

/** Flow definitions in the SQLite file, immutable once written (durable.md §3). */
export class SqliteFlowStore implements FlowStore {
  private readonly database: SqliteDatabase;

  constructor(options: SqliteFlowStoreOptions) {
    this.database = new SqliteDatabase(
      options.path,
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    );
  }

  async put(document: Record<string, unknown>): Promise<StoredFlow> {
    const record = flowRecord(document);
    const row = await this.database.use((db) =>
      db
        .transaction(() => {
          // DO NOTHING on either uniqueness: same hash (idempotent) or same flow_id + version.
          this.database.statement(INSERT).run({ ...record, createdAt: Date.now() });
          const stored = this.database.statement(BY_HASH).get(record.flowHash) as
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

  async getByHash(flowHash: string): Promise<StoredFlow | null> {
    if (!isStorableText(flowHash)) return null;
    const row = await this.database.use(
      () => this.database.statement(BY_HASH).get(flowHash) as FlowRow | undefined,
    );
    return row ? toStored(row) : null;
  }

  async getByVersion(flowId: string, version: string | null): Promise<StoredFlow | null> {
    // UTF-8 would turn a lone surrogate into U+FFFD and could match another flow.
    if (!isStorableText(flowId) || (version !== null && !isStorableText(version))) return null;
    const row = await this.database.use(
      () =>
        (version === null
          ? this.database.statement(LATEST).get(flowId)
          : this.database.statement(BY_VERSION).get(flowId, version)) as FlowRow | undefined,
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
