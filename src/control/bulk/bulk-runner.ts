import { randomUUID } from 'node:crypto';
import type { ExecutionState, ExecutionStatus } from '../../state/execution-state.js';
import { type ControlPage, ID_SEPARATOR, PLATFORM_TENANT } from '../../store/control-store.js';
import { sha256Hex } from '../../util/canonical-json.js';
import { BackgroundLoop } from '../../util/background-loop.js';
import type { Logger } from '../../util/logger.js';
import type { PlaitaClient } from '../../client/plaita-client.js';
import type { ControlStore } from '../../store/control-store.js';
import type { ExecutionStore } from '../../store/execution-store.js';
import type { FlowStore } from '../../store/flow-store.js';
import { replayExecution } from '../replay-execution.js';
import { isRetryable, refusalReason } from '../../errors/control-errors.js';
import { bulkIndexKey, bulkKey, type BulkOperation } from './bulk-operation.js';

const BATCH = 50;
const LEASE_MS = 30_000;
const MAX_FAILURES_KEPT = 20;

/** One execution of a batch: its state, or why it cannot be acted on. */
type Item = { executionId: string } & ({ state: ExecutionState } | { state: null; reason: string });

/** This runner no longer holds the operation's lease: another took it over. */
class LeaseLost extends Error {}

/**
 * Works through bulk operations, saving progress after every execution, so an operation
 * survives a restart: whichever server holds its lease continues where the last one stopped.
 * Each action is recorded before it is taken (`inFlight`), so the one a crash interrupted is
 * settled, not repeated: a replay's new execution has an id made from the operation and the
 * replayed execution, a cancel is done once the execution is cancelled, a retry once the
 * execution moved on. A lease is taken by compare-and-set; every progress save renews it, and
 * a runner that finds it taken stops at once. One operation's failure never holds up another's.
 */
export class BulkRunner {
  readonly #owner = `bulk-${randomUUID()}`;
  #loop: BackgroundLoop | undefined;
  /** Read inside a tick too: a stopping runner ends its batch at the execution at hand. */
  #stopped = false;

  constructor(
    private readonly services: {
      store: ExecutionStore;
      flows: FlowStore;
      control: ControlStore;
      client: PlaitaClient;
    },
    private readonly options: { log: Logger; tickMs?: number },
  ) {}

  start(): this {
    this.#loop ??= new BackgroundLoop(() => this.tick(), {
      name: 'bulk operations',
      log: this.options.log,
      intervalMs: this.options.tickMs ?? 250,
      firstTickMs: 0,
      // No backoff: a tick fails for one operation's outage after the others had their turn.
    }).start();
    return this;
  }

  /** Stops after the execution at hand; the operation's lease is given back for the next server. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop?.stop();
  }

  /**
   * One batch of every active operation whose lease this runner holds or can take. One
   * operation's failure never holds up the others: an outage (a retryable error: its
   * executions may sit on a store shard that is down) stops that operation's batch where it
   * was, and is thrown once every other operation had its turn; any other failure is logged.
   * Three outages in a row end the tick at once: the store itself is down.
   */
  async tick(): Promise<void> {
    let after: string | null = null;
    let outage: Error | null = null;
    let outagesInARow = 0;
    for (;;) {
      const page: ControlPage<unknown> = await this.services.control.list({
        collection: 'bulk_operations',
        tenant: PLATFORM_TENANT,
        limit: 100,
        after,
      });
      for (const item of page.items) {
        if (this.#stopped) return;
        const at = item.key.id.indexOf(ID_SEPARATOR);
        if (at <= 0) continue;
        const [tenant, id] = [item.key.id.slice(0, at), item.key.id.slice(at + 1)];
        try {
          await this.#advance(tenant, id);
          outagesInARow = 0;
        } catch (error) {
          if (error instanceof LeaseLost) continue;
          if (isRetryable(error)) {
            outage ??= error instanceof Error ? error : new Error(String(error));
            if (++outagesInARow >= 3) throw error;
            continue;
          }
          outagesInARow = 0;
          this.options.log.error({ err: error, tenant, id }, 'bulk operation failed a batch');
        }
      }
      if (page.next === null) {
        if (outage !== null) throw outage;
        return;
      }
      after = page.next;
    }
  }

  async #advance(tenant: string, id: string): Promise<void> {
    const key = bulkKey(tenant, id);
    const record = await this.services.control.get<BulkOperation>(key);
    if (!record || record.doc.status === 'completed') {
      await this.services.control.delete(bulkIndexKey(tenant, id));
      return;
    }
    const lease = record.doc.lease;
    if (lease && lease.owner !== this.#owner && lease.until > Date.now()) return;
    const op: BulkOperation = { ...record.doc, status: 'running' };
    let version = record.version;
    /**
     * Saves progress; LeaseLost when another runner took the operation over. The lease is held
     * while a batch runs and given back at its end (`release`), or when stopping, but never
     * while an action is recorded as under way: that one is settled by whoever holds it next.
     */
    const save = async (release = false): Promise<void> => {
      op.updatedAt = new Date().toISOString();
      const giveBack = (release || this.#stopped) && op.inFlight === undefined;
      op.lease = giveBack ? null : { owner: this.#owner, until: Date.now() + LEASE_MS };
      if (!(await this.services.control.replace(key, op, version))) throw new LeaseLost();
      version++;
    };
    await save();
    if (this.#stopped) return;
    if (op.inFlight) {
      await this.#settle(op, op.inFlight);
      await save();
    }
    const { ids, next, exhausted } = await this.#nextBatch(op);
    for (const executionId of ids) {
      if (this.#stopped) return await save(true);
      // Read just before acting: the version recorded with the action is the one it acted on.
      const item = await this.#load(op, executionId);
      if (item.state === null) {
        countFailure(op, executionId, item.reason);
      } else {
        op.inFlight = { executionId, version: item.state.version };
        await save(); // before the action: a takeover settles it instead of acting again
        await this.#apply(op, item.state);
        delete op.inFlight;
      }
      passed(op, executionId);
    }
    if (next) {
      Object.assign(op, next);
      delete op.handled;
    }
    if (exhausted) {
      op.status = 'completed';
      op.completedAt = new Date().toISOString();
    }
    await save(true);
    if (exhausted) await this.services.control.delete(bulkIndexKey(tenant, id));
  }

  /**
   * The action a crash interrupted: counted once, and taken again only when it certainly did
   * not happen. A replay is repeated (its id makes it a no-op if it happened); a cancel is
   * done once the execution is cancelled, and asked again otherwise (asking twice is
   * harmless). A retry is never sent twice: it is done once the execution moved on; still in
   * error, its message may yet be waiting in the queue, and a second one could re-run the
   * execution twice, so it counts as failed with a reason that says so.
   */
  async #settle(op: BulkOperation, inFlight: { executionId: string; version: number }) {
    delete op.inFlight;
    // Written by another version of the runner that went on without settling it: already past.
    if (!isNext(op, inFlight.executionId)) return;
    const state = await this.#load(op, inFlight.executionId);
    if (state.state === null) {
      countFailure(op, inFlight.executionId, state.reason);
    } else if (
      (op.action === 'cancel' && state.state.status === 'cancelled') ||
      (op.action === 'retry' && state.state.version !== inFlight.version)
    )
      op.done++;
    else if (op.action === 'retry') {
      countFailure(
        op,
        inFlight.executionId,
        'interrupted before its retry was confirmed; if it stays in error, retry it again',
      );
    } else await this.#apply(op, state.state);
    passed(op, inFlight.executionId);
  }

  /**
   * The next executions to act on, and where the batch after them starts. `offset` is the
   * index into `ids`; a filter's page at `cursor` is listed again until it is done, skipping
   * by id what was handled (`handled`).
   */
  async #nextBatch(op: BulkOperation): Promise<{
    ids: string[];
    /** Where a filter's next page starts once this one is done (null: `ids`, moved per item). */
    next: { cursor: string | null; offset: number } | null;
    exhausted: boolean;
  }> {
    if ('ids' in op.filter) {
      const ids = op.filter.ids.slice(op.offset, op.offset + BATCH);
      return { ids, next: null, exhausted: op.offset + ids.length >= op.filter.ids.length };
    }
    const filter = op.filter;
    // Only executions that existed when the operation was made: its own replays never match.
    const until = new Date(Date.parse(op.createdAt) + 1).toISOString();
    const page = await this.services.store.list({
      tenantId: op.tenantId,
      ...(filter.status ? { status: filter.status as ExecutionStatus[] } : {}),
      ...(filter.flowId ? { flowId: filter.flowId } : {}),
      ...(filter.from ? { createdAfter: filter.from } : {}),
      createdBefore: filter.to !== undefined && filter.to < until ? filter.to : until,
      limit: BATCH,
      cursor: op.cursor,
    });
    const handled = new Set(op.handled ?? []);
    const ours = `${op.id}.`;
    return {
      ids: page.items
        // `offset`: a record written before `handled` existed.
        .slice(op.handled === undefined ? op.offset : 0)
        .map((item) => item.executionId)
        .filter((executionId) => !handled.has(executionId) && !executionId.startsWith(ours)),
      next: { cursor: page.nextCursor, offset: 0 },
      exhausted: page.nextCursor === null,
    };
  }

  /** An outage is thrown (the batch stops, the lease lets it resume); anything else is the item's. */
  async #load(op: BulkOperation, executionId: string): Promise<Item> {
    try {
      const state = await this.services.store.load(executionId, { tenantId: op.tenantId });
      return state
        ? { executionId, state }
        : { executionId, state: null, reason: 'no such execution' };
    } catch (error) {
      if (isRetryable(error)) throw error;
      return { executionId, state: null, reason: refusalReason(error) };
    }
  }

  async #apply(op: BulkOperation, state: ExecutionState): Promise<void> {
    const scope = { tenantId: op.tenantId };
    try {
      if (op.action === 'cancel')
        await this.services.client.cancel(state.executionId, {
          ...scope,
          reason: `bulk operation ${op.id}`,
        });
      else if (op.action === 'retry') await this.services.client.retry(state.executionId, scope);
      else await replayExecution(this.services, state, undefined, replayIdOf(op, state));
      op.done++;
    } catch (error) {
      // An outage is not the execution's fault: stop this batch, the lease lets it resume.
      if (isRetryable(error)) throw error;
      countFailure(op, state.executionId, refusalReason(error));
    }
  }
}

/**
 * The id of the execution an operation's replay of `state` starts: the same on every attempt,
 * so a replay repeated after a crash finds it started. It begins with the operation's id (the
 * filter skips the operation's own replays by it) and fits the API's execution ids.
 */
function replayIdOf(op: BulkOperation, state: ExecutionState): string {
  return `${op.id}.${sha256Hex(state.executionId).slice(0, 24)}`;
}

/** True when `executionId` is the one the operation stands at (not yet moved past). */
function isNext(op: BulkOperation, executionId: string): boolean {
  if ('ids' in op.filter) return op.filter.ids[op.offset] === executionId;
  return !(op.handled ?? []).includes(executionId);
}

/** Past `executionId`, counted: the next position in `ids`, or one more handled on a filter's page. */
function passed(op: BulkOperation, executionId: string): void {
  op.matched++;
  if ('ids' in op.filter) op.offset++;
  else (op.handled ??= []).push(executionId);
}

/** One more refusal, and its reason kept while few are. */
function countFailure(op: BulkOperation, executionId: string, reason: string): void {
  op.failed++;
  if (op.failures.length < MAX_FAILURES_KEPT) op.failures.push({ executionId, reason });
}
