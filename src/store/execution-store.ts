import type { ErrorRecord } from '../errors/plaita-error.js';
import type { ExecutionState, ExecutionStatus, WaitingOn } from '../state/execution-state.js';
import type { Clock } from '../util/clock.js';

/** The default tenant: every read and list is scoped by a tenant (docs/durable-contract.md §1). */
export const DEFAULT_TENANT = 'default';

export interface TenantScope {
  /** Default `default`. A tenant never sees another tenant's executions. */
  tenantId?: string;
}

export interface SaveOptions {
  /**
   * Fenced write: succeeds only if the execution's current lease generation equals
   * `generation`, checked atomically with the write; otherwise FenceRejectedError and
   * nothing is written.
   */
  fence?: { generation: number };
  /**
   * The `$NODE` entries that changed since the last save of this execution. When given, only
   * those node results and the header are written (the checkpoint cost does not grow with the
   * steps already taken); when absent, the whole context is rewritten. The caller guarantees
   * the other entries are unchanged.
   */
  changedNodes?: readonly string[];
  /**
   * With `changedNodes`: the `timings` ids added, changed, removed, or moved to another place
   * in the map since the last save. When absent, every timing entry is written again (a removed
   * one stays stored: list it here). Only against a state the caller itself saved, never one it
   * loaded: a record stored before timing entries keeps its timings in its header, and only a
   * save without `changedTimings` (and without `unchangedInput`) moves them out.
   */
  changedTimings?: readonly string[];
  /**
   * With `changedNodes`: true when `context.$INPUT` is the value of the last save (the input
   * is stored apart and written only when it changed). Like stored `$NODE` results, an input
   * must not be changed in place.
   */
  unchangedInput?: boolean;
  /** Called with the bytes this save encodes (header and written node results), before any I/O. */
  onEncoded?: (bytes: number) => void;
  /**
   * Create only: written (whole) only if no live record of the execution exists, checked
   * atomically with the write; an expired one is replaced. Otherwise ExecutionExistsError and
   * nothing is written. A start with a dedup key: two concurrent starts, one execution.
   * Not with `fence` or `changedNodes`.
   */
  createOnly?: boolean;
}

export interface ListQuery extends TenantScope {
  status?: ExecutionStatus | readonly ExecutionStatus[];
  flowId?: string;
  flowHash?: string;
  /** ISO-8601 bounds on `createdAt` (exclusive). */
  createdBefore?: string;
  createdAfter?: string;
  /** Default 50, at most 1000. */
  limit?: number;
  /** From a previous page's `nextCursor`. */
  cursor?: string | null;
}

/** What `list` returns per execution: the header, never the context. */
export interface ExecutionSummary {
  executionId: string;
  tenantId: string;
  flowId: string | null;
  flowVersion: string | null;
  flowHash: string | null;
  status: ExecutionStatus;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  version: number;
  error: ErrorRecord | null;
  waiting: WaitingOn | null;
}

export interface ListPage {
  /** Newest first (by `createdAt`, then `executionId`). */
  items: ExecutionSummary[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface LeaseRequest extends TenantScope {
  /** Who holds it (a worker id); re-acquiring by the same owner succeeds. */
  owner: string;
  ttlMs: number;
}

export interface Lease {
  executionId: string;
  tenantId: string;
  owner: string;
  /** Fencing token: strictly increases with every acquisition of this execution's lease. */
  generation: number;
  /** Epoch ms. */
  expiresAt: number;
}

/** The lease a release names: its holder and fencing generation. */
export type LeaseRelease = { owner: string; generation: number } & TenantScope;
/** The lease a renewal names, and how long it is to last from now (ms). */
export type LeaseRenewal = LeaseRelease & { ttlMs: number };

/**
 * Where executions are kept (docs/durable-contract.md §3). Every implementation passes the same conformance
 * suite (`test/contracts/execution-store.contract.ts`) and goes through the one state codec.
 *
 * Errors: `StateSerializationError` / `StateTooLargeError` (permanent, nothing written),
 * `StoreUnavailableError` (transient: connection refused/reset, timeout, failover; `cause` is
 * the driver error), `FenceRejectedError` (stale lease generation, nothing written),
 * `StateCorruptError` (stored bytes cannot be decoded). Never a boolean, never swallowed.
 */
export interface ExecutionStore {
  /**
   * Writes the state atomically (header and node results together) and increments nothing
   * itself: `state.version` is written as given. Terminal states get an expiry after
   * `terminalTtlMs` (0 keeps them forever).
   */
  save(state: ExecutionState, options?: SaveOptions): Promise<void>;
  /** The state, or null when absent. Absent and "could not read" are never confused. */
  load(executionId: string, options?: TenantScope): Promise<ExecutionState | null>;
  /** Newest first, keyset pagination, every filter served by an index. */
  list(query?: ListQuery): Promise<ListPage>;
  /**
   * Every tenant with a stored execution, each once, in no set order: what the reaper walks,
   * since `list` reads one tenant. May still name a tenant whose executions are all gone.
   */
  tenants(): Promise<string[]>;
  /** True when something was deleted (its lease and node results included). */
  delete(executionId: string, options?: TenantScope): Promise<boolean>;

  /**
   * Takes the execution's lease and increments its fencing generation, atomically. Returns
   * null when another owner holds an unexpired lease. The execution must exist.
   */
  acquireLease(executionId: string, request: LeaseRequest): Promise<Lease | null>;
  /** Extends the lease if `owner` still holds it with `generation`; false when it was lost. */
  renewLease(executionId: string, lease: LeaseRenewal): Promise<boolean>;
  /** Gives the lease up if still held by `owner` with `generation` (idempotent). */
  releaseLease(executionId: string, lease: LeaseRelease): Promise<void>;
  /**
   * Optional fast path: acquire the lease, load the state and read the cancel flag in one step
   * (one round trip where the backend allows). Stores without it get {@link claimExecution}'s
   * composition of acquireLease + load + isCancelRequested.
   */
  claimExecution?(executionId: string, request: LeaseRequest): Promise<ClaimResult>;
  /** The current lease, or null when none is held (expired leases are not held). */
  getLease(executionId: string, options?: TenantScope): Promise<Lease | null>;

  /**
   * Marks the execution as to be cancelled, beside the state (a save never clears it), so
   * the worker running it sees the request between nodes. False when the execution is absent.
   */
  requestCancel(executionId: string, options?: TenantScope): Promise<boolean>;
  /** Whether a cancel was requested (see requestCancel). */
  isCancelRequested(executionId: string, options?: TenantScope): Promise<boolean>;

  /** Removes terminal executions whose expiry has passed; returns how many. */
  sweepExpired(now?: number): Promise<number>;
  /** Releases connections/handles. Idempotent. */
  close(): Promise<void>;
}

/** What a worker gets when it claims an execution for a message. */
export type ClaimResult =
  | { kind: 'claimed'; lease: Lease; state: ExecutionState; cancelRequested: boolean }
  /** Another owner holds an unexpired lease. */
  | { kind: 'held' }
  /** No such execution (for this tenant). */
  | { kind: 'absent' };

/**
 * A store's claim once its lease is taken: the state decoded from what the claim read. When it
 * cannot be decoded the caller never sees the lease, so it is given back rather than block the
 * execution for a TTL (best effort; it expires anyway), and the decoding error is thrown.
 */
export async function claimedWith(
  lease: Lease,
  cancelRequested: boolean,
  decode: () => ExecutionState,
  giveBack: () => Promise<unknown>,
): Promise<ClaimResult> {
  let state: ExecutionState;
  try {
    state = decode();
  } catch (error) {
    await giveBack().catch(() => undefined);
    throw error;
  }
  return { kind: 'claimed', lease, state, cancelRequested };
}

/** Claims through the store's fast path when it has one, else in three steps. */
export async function claimExecution(
  store: ExecutionStore,
  executionId: string,
  request: LeaseRequest,
): Promise<ClaimResult> {
  if (store.claimExecution) return store.claimExecution(executionId, request);
  const scope = request.tenantId === undefined ? {} : { tenantId: request.tenantId };
  const lease = await store.acquireLease(executionId, request);
  if (!lease) return (await store.load(executionId, scope)) ? { kind: 'held' } : { kind: 'absent' };
  const state = await store.load(executionId, scope);
  if (!state) {
    await store.releaseLease(executionId, {
      ...scope,
      owner: lease.owner,
      generation: lease.generation,
    });
    return { kind: 'absent' };
  }
  return {
    kind: 'claimed',
    lease,
    state,
    cancelRequested: await store.isCancelRequested(executionId, scope),
  };
}

export interface ExecutionStoreOptions {
  /** Terminal states expire after this (default 30 days); 0 keeps them forever. */
  terminalTtlMs?: number;
  /** Default 16 MiB. */
  maxStateBytes?: number;
  /** A server that cannot be reached makes an operation reject within this (default 5000). */
  connectTimeoutMs?: number;
  /**
   * The store's "now" (default the system clock): expiry, lease expiry computed in this
   * process, the times rows are written at. Pass the worker's clock so a FakeClock drives both.
   * Connection and operation timeouts stay on the system clock: they measure the wait itself.
   */
  clock?: Clock;
}

export const DEFAULT_TERMINAL_TTL_MS = 30 * 24 * 3600 * 1000;
export { DEFAULT_CONNECT_TIMEOUT_MS } from '../util/connect-timeout.js';
