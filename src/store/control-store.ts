/**
 * The control plane's small records — API keys, the audit log, schedules, approval decisions,
 * single-use tickets and links, bulk operations, worker heartbeats, settings — kept beside the
 * executions on the same backend. Each is one JSON document addressed by
 * (collection, tenant, id); every resource of the server is built on these few operations, so a
 * backend implements them once and passes one suite (`test/contracts/control-store.contract.ts`).
 *
 * Ids are ordered as strings (code-unit order); a collection that lists newest first uses ids
 * that sort by time (see `sortableId`). An expired record is absent for every operation, before
 * and after a sweep. Errors: `StoreUnavailableError` (transient), never a boolean for an outage.
 */
export interface ControlStore {
  /** The record, or null when absent or expired. */
  get<T>(key: ControlKey): Promise<ControlRecord<T> | null>;
  /**
   * Creates the record when absent (an expired one counts as absent), atomically: of two
   * concurrent creates exactly one returns true. Its version is 1.
   */
  create<T>(key: ControlKey, doc: T, options?: WriteOptions): Promise<boolean>;
  /**
   * Replaces the record when its current version is `expectedVersion` (compare-and-set); the
   * new version is `expectedVersion + 1`. False when absent or changed meanwhile.
   */
  replace<T>(
    key: ControlKey,
    doc: T,
    expectedVersion: number,
    options?: WriteOptions,
  ): Promise<boolean>;
  /** Creates or overwrites, unconditionally (heartbeats, settings). Returns the new version. */
  put<T>(key: ControlKey, doc: T, options?: WriteOptions): Promise<number>;
  /** True when a live record was deleted. */
  delete(key: ControlKey): Promise<boolean>;
  /** Reads and deletes in one atomic step: of two concurrent takes at most one gets it. */
  take<T>(key: ControlKey): Promise<ControlRecord<T> | null>;
  /**
   * Records of one collection and tenant in id order, keyset paged: `after` is the last id of
   * the previous page (exclusive). `prefix` keeps ids that start with it. Expired records never
   * appear. Served by the (collection, tenant, id) index: no scan of other collections.
   */
  list<T>(query: ControlQuery): Promise<ControlPage<T>>;
  /** Removes expired records; returns how many. */
  sweepExpired(now?: number): Promise<number>;
  close(): Promise<void>;
}

export interface ControlKey {
  collection: ControlCollection;
  /** The owning tenant, or `*` for platform-wide records (API keys, settings). */
  tenant: string;
  /** Any text without U+0000 (PostgreSQL cannot hold it); join parts with ID_SEPARATOR. */
  id: string;
}

/**
 * Compare-and-set until it lands: writes `change(doc)` if the record still has the version
 * read, and reads again when another writer came first, at most `attempts` times (default: until
 * it lands). `read` is the first read when the caller has it already. `change` returning null
 * writes nothing. Resolves whether a write landed (false: absent, nothing to write, or out of
 * attempts).
 */
export async function updateRecord<T>(
  control: ControlStore,
  key: ControlKey,
  change: (doc: T) => T | null,
  options: { read?: ControlRecord<T>; attempts?: number } = {},
): Promise<boolean> {
  let record = options.read ?? (await control.get<T>(key));
  for (let attempt = 1; record; attempt++) {
    const next = change(record.doc);
    if (next === null) return false;
    if (await control.replace(key, next, record.version)) return true;
    if (attempt >= (options.attempts ?? Infinity)) return false;
    record = await control.get<T>(key);
  }
  return false;
}

/** Joins the parts of a composite id (U+001F, the unit separator: sorts below every printable). */
export const ID_SEPARATOR = '\u001f';

/** Closed on purpose: a typo in a collection name is a type error, not a new collection. */
export type ControlCollection =
  | 'api_keys'
  | 'audit'
  | 'settings'
  | 'flow_versions'
  | 'schedules'
  | 'schedule_slots'
  | 'approval_decisions'
  | 'approval_links'
  | 'stream_tickets'
  | 'ended_sessions'
  | 'bulk_operations'
  | 'workers'
  | 'idempotency'
  | 'execution_meta';

export interface ControlRecord<T> {
  key: ControlKey;
  /** 1 on create, +1 on every replace or put. */
  version: number;
  doc: T;
  /** Epoch ms, or null for a record that never expires. */
  expiresAt: number | null;
}

export interface WriteOptions {
  /** The record expires this long after the write (ms); absent: never. */
  ttlMs?: number;
}

export interface ControlQuery {
  collection: ControlCollection;
  tenant: string;
  order?: 'asc' | 'desc';
  /** Default 50, at most 1000. */
  limit?: number;
  /** The last id of the previous page (exclusive). */
  after?: string | null;
  prefix?: string;
}

export interface ControlPage<T> {
  items: ControlRecord<T>[];
  /** The id to pass as `after` for the next page; null on the last page. */
  next: string | null;
}

export const MAX_CONTROL_LIMIT = 1000;
export const PLATFORM_TENANT = '*';

/** The limit of a control query, clamped to 1..MAX_CONTROL_LIMIT (default 50). */
export function controlLimit(query: Pick<ControlQuery, 'limit'>): number {
  const limit = query.limit ?? 50;
  return Math.max(1, Math.min(MAX_CONTROL_LIMIT, Math.floor(limit)));
}

/**
 * An id that sorts by creation time (12 base-36 digits of epoch ms, then random), so lists in
 * id order are lists in time order and keyset paging needs no second column.
 */
export function sortableId(now: number = Date.now(), random: string = randomSuffix()): string {
  return `${now.toString(36).padStart(12, '0')}-${random}`;
}

function randomSuffix(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 12);
}
