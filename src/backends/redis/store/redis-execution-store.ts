import { PlaitaError } from '../../../errors/plaita-error.js';
import { StateCorruptError } from '../../../errors/state-errors.js';
import {
  isTerminal,
  type ExecutionState,
  type ExecutionStatus,
} from '../../../state/execution-state.js';
import { assembleState } from '../../../store/checkpoint-parts.js';
import {
  claimedWith,
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
} from '../../../store/execution-store.js';
import { decodeSummary, type ExecutionRow } from '../../../store/shared/execution-row.js';
import { alreadyStored, fenceRejected } from '../../../store/shared/fence.js';
import {
  asFullRewrite,
  planSave,
  rejectOversized,
  type SavePlan,
} from '../../../store/shared/save-plan.js';
import {
  resolveStoreOptions,
  type ResolvedStoreOptions,
} from '../../../store/shared/store-options.js';
import { executionKey, type ExecutionKey } from '../../../store/shared/stored-key.js';
import { assertStorableOwner, assertTtl } from '../../../store/shared/stored-text.js';
import type { ClaimRequest, ClaimResult } from './claim-result.js';
import { ExecutionIndex, type ExpiringRef } from './execution-index.js';
import { listExecutions } from './list-executions.js';
import { checkIndexLayout, rebuildIndexes, type RebuildReport } from './index-layout.js';
import {
  RedisConnection,
  type RedisConnectionOptions,
  type RedisTarget,
} from '../redis-connection.js';
import { RedisKeys, type ExecutionKeys } from './redis-keys.js';
import { RedisLeases } from './redis-leases.js';
import { SCRIPTS } from './redis-store-scripts.js';
import { ScriptBatch } from './script-batch.js';
import { StatusHints } from './status-hints.js';
import { flatPairs, integerAt, stringAt, tagged, unexpected } from './script-reply.js';
import type { Clock } from '../../../util/clock.js';

export interface RedisStoreOptions extends RedisConnectionOptions {
  /** First segment of every key (default `plaita`); must not contain `{` or `}`. */
  prefix?: string;
  /**
   * Slots each tenant's listing indexes are split over (default 1: one slot per tenant, the
   * key names of an unpartitioned store). On Redis Cluster, N > 1 spreads a busy tenant's
   * index writes over N slots; `list` merges them with the same order and cursors. Every
   * process of one store must use the same N (see docs/scaling.md).
   */
  indexPartitions?: number;
  /**
   * The store's "now", for what this process computes: expiry, write times (default the
   * system clock). Leases are judged by the Redis server's clock.
   */
  clock?: Clock;
}

export interface RedisExecutionStoreOptions extends RedisStoreOptions, ExecutionStoreOptions {
  /** Expiry-index entries examined per `sweepExpired` call (default 1000). */
  sweepBatchSize?: number;
}

const DEFAULT_SWEEP_BATCH = 1000;
/** Sweep scripts in flight at once: bounded pressure on the server. */
const SWEEP_CONCURRENCY = 50;

type SaveReply =
  | { kind: 'ok'; previousStatus: ExecutionStatus | null; indexed: boolean }
  | { kind: 'fenced'; storedGeneration: number | null }
  | { kind: 'missing' }
  | { kind: 'exists' }
  | { kind: 'too_large'; sizes: [string, number][] };

/**
 * The cluster-tier execution store (docs/durable-contract.md §3) on Redis via ioredis. Layout in
 * redis-keys.ts; index consistency model in execution-index.ts; the never-hang connection
 * rules in redis-connection.ts; one Lua script per atomic transition beside this file. Saves
 * are planned (encoded, validated) by the same code as every other store, before any I/O.
 *
 * A save is one script on the execution's slot (batched with the other saves of its tick:
 * script-batch.ts): fence check first, then the size guard over
 * the result sizes the script keeps (a running total, so an incremental save never re-reads
 * the stored results), then the header and only the changed results. On a single Redis the same
 * script updates the listing indexes when the status changes; on a cluster (other slots) the
 * index update follows (execution-index.ts).
 */
export class RedisExecutionStore implements ExecutionStore {
  readonly #connection: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #index: ExecutionIndex;
  readonly #leases: RedisLeases;
  readonly #saves: ScriptBatch;
  readonly #claims: ScriptBatch;
  readonly #options: ResolvedStoreOptions;
  readonly #sweepBatchSize: number;
  readonly #hints = new StatusHints();
  /** The layout check's success, once (a failed check is asked again next time). */
  #layoutChecked: Promise<void> | null = null;
  /** The layout recorded (or found the same) before this store's first write, once. */
  #layoutRecorded: Promise<void> | null = null;

  constructor(target: RedisTarget, options: RedisExecutionStoreOptions = {}) {
    this.#options = resolveStoreOptions(options);
    this.#sweepBatchSize = Math.max(1, Math.floor(options.sweepBatchSize ?? DEFAULT_SWEEP_BATCH));
    this.#keys = new RedisKeys(options.prefix ?? 'plaita', options.indexPartitions ?? 1);
    this.#connection = new RedisConnection(
      target,
      { ...options, connectTimeoutMs: this.#options.connectTimeoutMs },
      'RedisExecutionStore',
    );
    this.#index = new ExecutionIndex(this.#connection, this.#keys);
    this.#leases = new RedisLeases(this.#connection, this.#keys);
    this.#saves = new ScriptBatch(this.#connection, SCRIPTS.saveStates, 'save');
    this.#claims = new ScriptBatch(this.#connection, SCRIPTS.claimExecutions, 'claim');
  }

  /** Saves under way: close() lets them finish (a save's index update follows its script). */
  readonly #saving = new Set<Promise<void>>();

  save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    const saving = this.#save(state, options);
    this.#saving.add(saving);
    void saving.then(
      () => this.#saving.delete(saving),
      () => this.#saving.delete(saving),
    );
    return saving;
  }

  async #save(state: ExecutionState, options: SaveOptions): Promise<void> {
    // Everything that can fail permanently fails here, before a byte is sent.
    let plan = planSave(state, options, this.#options, this.#options.clock.now());
    // Once per store: a writer with another N than the indexes' would index where no list reads.
    if (this.#layoutRecorded === null) await this.#recordLayout();
    if (this.#registered.get(plan.row.tenantId) !== true) await this.#register(plan.row.tenantId);
    let reply = await this.#write(plan);
    if (reply.kind === 'missing') {
      // changedNodes for an execution that is not stored: there are no unchanged results to keep.
      plan = asFullRewrite(state, plan, this.#options);
      reply = await this.#write(plan);
    }
    const { row } = plan;
    switch (reply.kind) {
      case 'fenced':
        throw fenceRejected(row.executionId, reply.storedGeneration, plan.fence ?? 0);
      case 'too_large':
        return rejectOversized(plan, reply.sizes, this.#options.maxStateBytes);
      case 'missing':
        throw unexpected('MISSING after a full rewrite', 'save-state');
      case 'exists':
        throw alreadyStored(row.executionId);
      case 'ok':
        this.#hints.set(row.tenantId, row.executionId, row.status);
        // On a single Redis the save's own script updated the indexes when asked to.
        if (reply.indexed) return;
        await this.#index.record(row, reply.previousStatus, row.expiresAt);
    }
  }

  /**
   * The index keys and arguments a save carries into its own script, or null. A cluster keeps
   * the indexes in other slots: ExecutionIndex updates them after the save. On a single Redis
   * the save's script does it when the status may change; most saves are running → running
   * checkpoints and send no index keys at all. An execution whose last index update failed goes
   * the ExecutionIndex way too: it re-indexes whatever the status.
   */
  #indexInSave(row: ExecutionRow): { keys: string[]; args: (string | number)[] } | null {
    if (this.#connection.isCluster) return null;
    const unchanged =
      row.expiresAt === null &&
      !isTerminal(row.status) &&
      this.#hints.get(row.tenantId, row.executionId) === row.status;
    return unchanged || this.#index.failed(row) ? null : this.#index.inline(row);
  }

  async #write(plan: SavePlan): Promise<SaveReply> {
    const { row, checkpoint } = plan;
    const keys = this.#keys.execution(row.tenantId, row.executionId);
    const index = this.#indexInSave(row);
    const args: (string | number)[] = [
      plan.createOnly ? 'create' : (plan.fence ?? ''),
      checkpoint.fullRewrite ? '1' : '0',
      row.header,
      row.summary,
      row.status,
      this.#options.maxStateBytes,
      row.expiresAt ?? '',
      checkpoint.removedKeys.length,
      index === null ? 0 : index.args.length,
      ...(index === null ? [] : index.args),
      ...checkpoint.removedKeys,
    ];
    for (const entry of checkpoint.entries) args.push(entry.key, entry.text);
    const scriptKeys =
      index === null ? [keys.header, keys.nodes] : [keys.header, keys.nodes, ...index.keys];
    const raw = await this.#saves.run({ executionId: row.executionId, keys: scriptKeys, args });
    const { tag, values } = tagged(raw, 'save-state');
    switch (tag) {
      case 'OK': {
        const previous = stringAt(values, 0, 'save-state');
        return {
          kind: 'ok',
          previousStatus: previous === '' ? null : (previous as ExecutionStatus),
          indexed: index !== null,
        };
      }
      case 'FENCED':
        return {
          kind: 'fenced',
          storedGeneration: values[0] === '' ? null : integerAt(values, 0, 'save-state'),
        };
      case 'MISSING':
        return { kind: 'missing' };
      case 'EXISTS':
        return { kind: 'exists' };
      case 'TOO_LARGE': {
        const sizes = flatPairs(values.slice(1), 'save-state').map(
          ([key, bytes]): [string, number] => [key, Number(bytes)],
        );
        return { kind: 'too_large', sizes };
      }
      default:
        throw unexpected(raw, 'save-state');
    }
  }

  async load(executionId: string, options: TenantScope = {}): Promise<ExecutionState | null> {
    const key = executionKey(executionId, options);
    if (key === null) return null;
    const keys = this.#keysOf(key);
    const raw = await this.#connection.call(`load of execution ${executionId}`, (client) =>
      SCRIPTS.loadState.run(client, [keys.header, keys.nodes], []),
    );
    if (raw === null) return null;
    if (!Array.isArray(raw) || typeof raw[0] !== 'string') throw unexpected(raw, 'load-state');
    return decodeRecord(key, raw[0], raw[1], 'load-state');
  }

  /**
   * Takes the execution's lease and reads its state and cancel mark, as ONE script
   * (`claim-execution.lua`, batched with the other claims of its tick): what `acquireLease`, `load` and `isCancelRequested` answer one
   * after the other, in one round trip, with the state read under the new lease.
   */
  async claimExecution(executionId: string, request: ClaimRequest): Promise<ClaimResult> {
    assertStorableOwner(request.owner);
    assertTtl(request.ttlMs);
    const key = executionKey(executionId, request);
    if (key === null) return { kind: 'absent' };
    const keys = this.#keysOf(key);
    const raw = await this.#claims.run({
      executionId,
      keys: [keys.header, keys.nodes],
      args: [request.owner, request.ttlMs],
    });
    const { tag, values } = tagged(raw, 'claim-execution');
    switch (tag) {
      case 'OK': {
        const lease: Lease = {
          executionId,
          tenantId: key.tenantId,
          owner: request.owner,
          generation: integerAt(values, 0, 'claim-execution'),
          expiresAt: integerAt(values, 1, 'claim-execution'),
        };
        return claimedWith(
          lease,
          values[4] === 1,
          () => {
            const state = decodeRecord(
              key,
              stringAt(values, 2, 'claim-execution'),
              values[3],
              'claim-execution',
            );
            this.#hints.set(key.tenantId, executionId, state.status);
            return state;
          },
          () => this.#leases.release(executionId, lease),
        );
      }
      case 'HELD':
        return { kind: 'held' };
      case 'MISSING':
        return { kind: 'absent' };
      default:
        throw unexpected(raw, 'claim-execution');
    }
  }

  async list(query: ListQuery = {}): Promise<ListPage> {
    await this.checkIndexLayout();
    return listExecutions(this.#connection, this.#keys, query);
  }

  /**
   * Refuses (StoreConfigurationError) a store opened with another `indexPartitions` than its
   * listing indexes were built with (index-layout.ts). `list` checks once per store; processes
   * that only write (workers) are checked by whoever opens them (the CLI does, at start).
   */
  checkIndexLayout(): Promise<void> {
    if (this.#layoutRecorded !== null) return this.#layoutRecorded;
    this.#layoutChecked ??= checkIndexLayout(this.#connection, this.#keys, false).catch(
      (error: unknown) => {
        this.#layoutChecked = null;
        throw error;
      },
    );
    return this.#layoutChecked;
  }

  /**
   * Tenants this store has put in `<prefix>:tenants` (true) or is putting there: one SADD per
   * tenant per store, before its first save, so the reaper can find every tenant's executions.
   */
  readonly #registered = new Map<string, Promise<void> | true>();

  #register(tenantId: string): Promise<void> {
    const known = this.#registered.get(tenantId);
    if (known === true) return Promise.resolve();
    if (known) return known;
    const adding = this.#connection
      .call(`registration of tenant ${tenantId}`, (client) =>
        client.sadd(this.#keys.tenants, tenantId),
      )
      .then(
        () => void this.#registered.set(tenantId, true),
        (error: unknown) => {
          this.#registered.delete(tenantId); // asked again by the next save
          throw error;
        },
      );
    this.#registered.set(tenantId, adding);
    return adding;
  }

  async tenants(): Promise<string[]> {
    return this.#connection.call('read of the tenants', (client) =>
      client.smembers(this.#keys.tenants),
    );
  }

  #recordLayout(): Promise<void> {
    this.#layoutRecorded ??= checkIndexLayout(this.#connection, this.#keys, true).catch(
      (error: unknown) => {
        this.#layoutRecorded = null;
        throw error;
      },
    );
    return this.#layoutRecorded;
  }

  /**
   * Rebuilds every execution's listing-index entries in this store's layout and deletes the
   * index keys of any other (`plaita reindex`; offline: nothing else may write meanwhile).
   */
  async rebuildIndexes(): Promise<RebuildReport> {
    const report = await rebuildIndexes(this.#connection, this.#keys, this.#index);
    this.#layoutRecorded = Promise.resolve();
    return report;
  }

  async delete(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    // Its index entries are removed in this store's layout: refused before anything goes when
    // the indexes were built with another one (they would be left behind).
    await this.checkIndexLayout();
    const keys = this.#keysOf(key);
    const raw = await this.#connection.call(`delete of execution ${executionId}`, (client) =>
      SCRIPTS.deleteExecution.run(client, [keys.header, keys.nodes], []),
    );
    if (raw === null) return false;
    if (typeof raw !== 'string') throw unexpected(raw, 'delete-execution');
    // The record is gone already: an unreadable summary only leaves flow-index entries behind,
    // which `list` prunes as stale.
    let ref: ExpiringRef = { ...key, flowId: null, flowHash: null };
    try {
      const summary = decodeSummary(raw);
      ref = { ...ref, flowId: summary.flowId, flowHash: summary.flowHash };
    } catch (error) {
      if (!(error instanceof StateCorruptError)) throw error;
    }
    await this.#index.remove(ref);
    return true;
  }

  acquireLease(executionId: string, request: LeaseRequest): Promise<Lease | null> {
    return this.#leases.acquire(executionId, request);
  }

  renewLease(executionId: string, lease: LeaseRenewal): Promise<boolean> {
    return this.#leases.renew(executionId, lease);
  }

  releaseLease(executionId: string, lease: LeaseRelease): Promise<void> {
    return this.#leases.release(executionId, lease);
  }

  getLease(executionId: string, options: TenantScope = {}): Promise<Lease | null> {
    return this.#leases.get(executionId, options);
  }

  async requestCancel(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    const header = this.#keysOf(key).header;
    const raw = await this.#connection.call(`cancel request of ${executionId}`, (client) =>
      SCRIPTS.requestCancel.run(client, [header], []),
    );
    if (raw !== 0 && raw !== 1) throw unexpected(raw, 'request-cancel');
    return raw === 1;
  }

  async isCancelRequested(executionId: string, options: TenantScope = {}): Promise<boolean> {
    const key = executionKey(executionId, options);
    if (key === null) return false;
    const header = this.#keysOf(key).header;
    const mark = await this.#connection.call(`cancel check of ${executionId}`, (client) =>
      client.hget(header, 'cancelRequested'),
    );
    return mark === '1';
  }

  /**
   * Redis removes expired executions itself (key TTL). This prunes their index entries, and
   * deletes those whose expiry is before `now` but not reached by the server yet, so an
   * explicit `now` behaves as in the SQL stores. At most `sweepBatchSize` expiry entries per
   * call; returns how many executions were removed or pruned.
   */
  async sweepExpired(now: number = this.#options.clock.now()): Promise<number> {
    await this.checkIndexLayout(); // as delete: the expiry index is read in this store's layout
    const due = await this.#index.dueExpiries(now, this.#sweepBatchSize);
    let removed = 0;
    for (let i = 0; i < due.length; i += SWEEP_CONCURRENCY) {
      const batch = due.slice(i, i + SWEEP_CONCURRENCY);
      const results = await Promise.all(
        batch.map(({ member, ref }) => this.#sweepOne(member, ref, now)),
      );
      removed += results.filter(Boolean).length;
    }
    return removed;
  }

  async #sweepOne(member: string, ref: ExpiringRef | null, now: number): Promise<boolean> {
    if (ref === null) {
      await this.#index.rescheduleExpiry(member, null); // an unreadable entry must not block the sweep
      return false;
    }
    const keys = this.#keysOf(ref);
    const raw = await this.#connection.call(`sweep of execution ${ref.executionId}`, (client) =>
      SCRIPTS.sweepExecution.run(client, [keys.header, keys.nodes], [now]),
    );
    const { tag, values } = tagged(raw, 'sweep-execution');
    switch (tag) {
      case 'GONE':
      case 'DELETED':
        await this.#index.remove(ref);
        return true;
      case 'LATER':
        await this.#index.rescheduleExpiry(member, integerAt(values, 0, 'sweep-execution'));
        return false;
      case 'KEEP':
        await this.#index.rescheduleExpiry(member, null);
        return false;
      default:
        throw unexpected(raw, 'sweep-execution');
    }
  }

  async close(): Promise<void> {
    // Saves accepted before close() are written, their index updates included, not dropped.
    await Promise.allSettled([...this.#saving]);
    // Claims and releases asked for before close() go out too (batched: not sent yet).
    await Promise.all([this.#claims.settle(), this.#leases.settle()]);
    await this.#index.settle();
    return this.#connection.close();
  }

  #keysOf(key: ExecutionKey): ExecutionKeys {
    return this.#keys.execution(key.tenantId, key.executionId);
  }
}

/**
 * A stored record (header text and the flat results reply) → its state. Any decoding failure,
 * and a record naming another execution or tenant than its key, is StateCorruptError.
 */
function decodeRecord(
  key: ExecutionKey,
  header: string,
  flatNodes: unknown,
  script: string,
): ExecutionState {
  const { executionId, tenantId } = key;
  const entries = flatPairs(flatNodes, script);
  const state = decodeStored(executionId, () => assembleState(header, entries));
  if (state.executionId !== executionId || state.tenantId !== tenantId) {
    throw new StateCorruptError(
      `the record kept for execution ${executionId} of tenant ${tenantId} names ${state.executionId} of ${state.tenantId}`,
      { executionId },
    );
  }
  return state;
}

/** Decoding a stored record: any failure is StateCorruptError (retrying cannot help). */
function decodeStored(executionId: string, decode: () => ExecutionState): ExecutionState {
  try {
    return decode();
  } catch (error) {
    if (error instanceof PlaitaError) throw error;
    throw new StateCorruptError(
      `the stored record of execution ${executionId} cannot be decoded: ${(error as Error).message}`,
      {
        cause: error,
        executionId,
      },
    );
  }
}
