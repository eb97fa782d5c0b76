import {
  EXECUTION_STATUSES,
  isTerminal,
  type ExecutionStatus,
} from '../../../state/execution-state.js';
import type { RedisClient, RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { StoreClosedError } from '../../../errors/store-errors.js';
import { SCRIPTS } from './redis-store-scripts.js';
import { TickBatch } from '../../../util/tick-batch.js';

/**
 * The listing indexes of the Redis execution store, and their consistency model.
 *
 * Per tenant, sorted sets (member executionId, score createdAt ms): `all`, one per status, one
 * per flowId, one per flowHash; globally, `expiring` (member {@link ExpiringRef} JSON, score
 * expiry ms) for the sweep. They live in other slots than the executions, so no script can
 * update both: the record is the truth and the indexes follow it.
 *
 * - On a single Redis a save that may change the status updates the indexes in its own script
 *   (`save-state.lua` with {@link ExecutionIndex.inline}'s keys), before it writes the record:
 *   one round trip, and an index write that fails writes no record. What follows is the
 *   cluster's case, and a single Redis's when a save's status changed unforeseen (StatusHints).
 * - A save first commits the execution (one script), THEN updates the indexes (one script in
 *   the slot of the tenant's index partition holding the execution, `index-entries.lua`,
 *   shared by the saves of one tick: see `#updates`):
 *   add to `all`, the flow indexes and the current status, remove from every other status. So an index entry only ever appears after its record exists, and any
 *   successful save repairs every index entry of its execution.
 * - If the index update fails (the server went away between the two), the save rejects with
 *   StoreUnavailableError although the record was written; the caller's retry of the same
 *   save through the same store rewrites it and repairs the indexes (see `#failed`), the
 *   store adds the entry again in the background a few times (`#repairLater`: a suspended
 *   execution may not be saved again for days), and any later change of status repairs them
 *   whoever makes it. A process that dies before any of these leaves it to that change. Until
 *   then `list` may miss the execution or show it under its previous status — never another
 *   tenant's, never a wrong summary (summaries come from the record, not the index).
 * - `list` tolerates stale entries: an id whose record is gone, or whose status / flowId /
 *   flowHash no longer matches the index it was found in, is skipped and removed — then the
 *   record is read again and the entry restored if it became valid meanwhile, so a removal
 *   racing with a concurrent save can never lose a valid entry (the saver's own index script runs
 *   after its script; either it re-adds after our removal or we see its record and restore).
 * - Index updates land in the order they are sent, which is the order of the saves when they
 *   come from one process. Unfenced concurrent saves of ONE execution from two processes (what
 *   leases and fencing exist to prevent) may leave it listed under an older status until its
 *   next save; `list` then skips it there rather than show a wrong summary.
 * - Deleted executions leave the indexes in `delete`; expired ones in `sweepExpired`.
 */
export interface IndexedExecution {
  tenantId: string;
  executionId: string;
  flowId: string | null;
  flowHash: string | null;
  status: ExecutionStatus;
  /** Epoch ms: the score in every index (newest first by creation). */
  createdAt: number;
}

/** What the expiry index remembers, so the sweep can clean indexes after the record is gone. */
export type ExpiringRef = Pick<
  IndexedExecution,
  'tenantId' | 'executionId' | 'flowId' | 'flowHash'
>;

/**
 * One pending index update: the execution's entries under `status`, or gone (`null`);
 * `addOnly`: added under `status` without being removed from the other statuses.
 */
interface IndexUpdate {
  entry: ExpiringRef & { createdAt: number };
  status: ExecutionStatus | null;
  addOnly?: boolean;
}

const FAILED_LIMIT = 10_000;
/** When a failed index update is added again in the background (ms after the failure, each). */
const REPAIR_DELAYS_MS = [1000, 5000, 30_000];

export class ExecutionIndex {
  /**
   * Group commit per tenant and index partition (one slot): the updates one process
   * makes in one tick go out as ONE `index-entries.lua` call, atomic, applied in call order.
   */
  readonly #updates = new TickBatch<IndexUpdate>((_, updates) => this.#sendUpdates(updates));
  /** The expiry index's group commit: one ZADD and/or one ZREM per tick. */
  readonly #expiries = new TickBatch<[member: string, expiresAt: number | null]>((_, items) =>
    this.#sendExpiries(items),
  );

  /**
   * Executions whose index update failed after their record was written (tenant NUL id):
   * their next save re-indexes even with an unchanged status. Bounded: dropped wholesale at
   * {@link FAILED_LIMIT} (an outage that long is repaired by each execution's next status change).
   */
  readonly #failed = new Set<string>();

  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: RedisKeys,
  ) {}

  /** Sends the updates waiting for the end of this tick now; resolves once all settled. */
  async settle(): Promise<void> {
    await Promise.all([this.#updates.settle(), this.#expiries.settle()]);
  }

  /** After a committed save: the indexes name exactly this status; the expiry index follows the TTL. */
  record(
    entry: IndexedExecution,
    previousStatus: ExecutionStatus | null,
    expiresAt: number | null,
  ): Promise<void> {
    // Same status as before: every index already names this execution (createdAt, flow and
    // hash never change), and a non-terminal status has no expiry entry. Most checkpoints
    // are such running → running saves: they cost no index round trip at all.
    // Unless this process's last update of them failed: the record then changed status while
    // the indexes did not, and the retry of that same save is what must repair them.
    const failedKey = refKey(entry);
    if (
      previousStatus === entry.status &&
      expiresAt === null &&
      !isTerminal(entry.status) &&
      !this.#failed.has(failedKey)
    )
      return Promise.resolve();
    const updates = [this.#updates.add(this.#batchKey(entry), { entry, status: entry.status })];
    if (expiresAt !== null)
      updates.push(this.#expiries.add('', [expiringMember(entry), expiresAt]));
    else if (previousStatus !== null && isTerminal(previousStatus))
      updates.push(this.#expiries.add('', [expiringMember(entry), null]));
    return Promise.all(updates).then(
      () => void this.#failed.delete(failedKey),
      (error: unknown) => {
        if (this.#failed.size >= FAILED_LIMIT) this.#failed.clear();
        this.#failed.add(failedKey);
        this.#repairLater(entry, 0);
        throw error;
      },
    );
  }

  /**
   * The caller may never save this execution again soon (a suspended one waits for its event;
   * its redelivered message finds nothing to do), so the entry is also added again in the
   * background, a few times. Only added: it removes nothing from another status, so one that
   * lands after a newer status change leaves a stale entry `list` skips and prunes, never a
   * missing one.
   */
  #repairLater(entry: IndexedExecution, attempt: number): void {
    const delayMs = REPAIR_DELAYS_MS[attempt];
    if (delayMs === undefined) return;
    const failedKey = refKey(entry);
    setTimeout(() => {
      if (!this.#failed.has(failedKey)) return; // a later save re-indexed it
      this.#updates.add(this.#batchKey(entry), { entry, status: entry.status, addOnly: true }).then(
        () => void this.#failed.delete(failedKey),
        (error: unknown) => {
          if (!(error instanceof StoreClosedError)) this.#repairLater(entry, attempt + 1);
        },
      );
    }, delayMs).unref();
  }

  /** This process's last index update of the execution failed (see `#failed`). */
  failed(ref: Pick<ExpiringRef, 'tenantId' | 'executionId'>): boolean {
    return this.#failed.has(refKey(ref));
  }

  /**
   * For a single Redis, where one script may touch every key: the keys and arguments with which
   * `save-state.lua` brings `entry`'s indexes up to date itself, in the save's own script and
   * round trip (the KEYS it appends after the execution's two, and the 7 index arguments).
   */
  inline(entry: IndexedExecution): { keys: string[]; args: (string | number)[] } {
    const idx = this.keys.tenantIndex(entry.tenantId, this.keys.indexPartition(entry.executionId));
    const keys = [this.keys.expiring, idx.all, ...EXECUTION_STATUSES.map((s) => idx.status(s))];
    // KEYS positions in the whole script call: the execution's two keys come first.
    const flow = entry.flowId === null ? 0 : keys.push(idx.flow(entry.flowId)) + 2;
    const hash = entry.flowHash === null ? 0 : keys.push(idx.hash(entry.flowHash)) + 2;
    const args = [
      EXECUTION_STATUSES.length,
      EXECUTION_STATUSES.indexOf(entry.status) + 1,
      entry.executionId,
      entry.createdAt,
      flow,
      hash,
      expiringMember(entry),
    ];
    return { keys, args };
  }

  /** Removes every index entry of an execution that is gone (deleted or expired). */
  async remove(ref: ExpiringRef): Promise<void> {
    await Promise.all([
      this.#updates.add(this.#batchKey(ref), { entry: { ...ref, createdAt: 0 }, status: null }),
      this.#expiries.add('', [expiringMember(ref), null]),
    ]);
  }

  /** One batch per slot: the tenant and the execution's index partition. */
  #batchKey(ref: ExpiringRef): string {
    return `${this.keys.indexPartition(ref.executionId)}:${ref.tenantId}`;
  }

  async #sendUpdates(updates: readonly IndexUpdate[]): Promise<void> {
    const { tenantId, executionId } = updates[0]!.entry;
    const idx = this.keys.tenantIndex(tenantId, this.keys.indexPartition(executionId));
    const keys = [idx.all, ...EXECUTION_STATUSES.map((s) => idx.status(s))];
    const extra = new Map<string, number>(); // flow / hash index key → its KEYS position (1-based)
    const position = (key: string): number => {
      let at = extra.get(key);
      if (at === undefined) {
        at = keys.push(key);
        extra.set(key, at);
      }
      return at;
    };
    const args: (string | number)[] = [EXECUTION_STATUSES.length];
    for (const { entry, status, addOnly } of updates) {
      const statusAt = status === null ? 0 : EXECUTION_STATUSES.indexOf(status) + 1;
      args.push(
        entry.executionId,
        entry.createdAt,
        addOnly === true ? -statusAt : statusAt,
        entry.flowId === null ? 0 : position(idx.flow(entry.flowId)),
        entry.flowHash === null ? 0 : position(idx.hash(entry.flowHash)),
      );
    }
    const first = updates[0]!.entry.executionId;
    const what = updates.length === 1 ? first : `${first} and ${updates.length - 1} more`;
    await this.connection.call(`index update of ${what}`, (client) =>
      SCRIPTS.indexEntries.run(client, keys, args),
    );
  }

  async #sendExpiries(items: readonly [string, number | null][]): Promise<void> {
    // Distinct members are independent; for a member named twice only its last update counts.
    const last = new Map(items);
    const adds: (string | number)[] = [];
    const removes: string[] = [];
    for (const [member, expiresAt] of last) {
      if (expiresAt === null) removes.push(member);
      else adds.push(expiresAt, member);
    }
    const what = `expiry index update of ${last.size} execution${last.size === 1 ? '' : 's'}`;
    await this.connection.call(what, async (client) => {
      await Promise.all([
        adds.length > 0 ? client.zadd(this.keys.expiring, ...adds) : null,
        removes.length > 0 ? client.zrem(this.keys.expiring, ...removes) : null,
      ]);
    });
  }

  /** The oldest expiry entries due at `now` (at most `limit`); `ref` null for a member we cannot read. */
  async dueExpiries(
    now: number,
    limit: number,
  ): Promise<{ member: string; ref: ExpiringRef | null }[]> {
    const members = await this.connection.call('sweep scan of the expiry index', (c) =>
      c.zrangebyscore(this.keys.expiring, '-inf', now, 'LIMIT', 0, limit),
    );
    return members.map((member) => ({ member, ref: parseExpiringMember(member) }));
  }

  /** Drops an expiry entry (the execution is no longer expiring) or moves it to its new time. */
  async rescheduleExpiry(member: string, expiresAt: number | null): Promise<void> {
    await this.connection.call('expiry index update', (c: RedisClient) =>
      expiresAt === null
        ? c.zrem(this.keys.expiring, member)
        : c.zadd(this.keys.expiring, expiresAt, member),
    );
  }
}

/** An execution in `#failed`: tenant NUL id. */
function refKey(ref: Pick<ExpiringRef, 'tenantId' | 'executionId'>): string {
  return `${ref.tenantId}\u0000${ref.executionId}`;
}

/** JSON of [tenantId, executionId, flowId, flowHash]: all the sweep needs once the record is gone. */
export function expiringMember(ref: ExpiringRef): string {
  return JSON.stringify([ref.tenantId, ref.executionId, ref.flowId, ref.flowHash]);
}

function parseExpiringMember(member: string): ExpiringRef | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(member);
  } catch {
    return null;
  }
  const ok =
    Array.isArray(parsed) &&
    parsed.length === 4 &&
    typeof parsed[0] === 'string' &&
    typeof parsed[1] === 'string' &&
    (parsed[2] === null || typeof parsed[2] === 'string') &&
    (parsed[3] === null || typeof parsed[3] === 'string');
  if (!ok) return null;
  const [tenantId, executionId, flowId, flowHash] = parsed as [
    string,
    string,
    string | null,
    string | null,
  ];
  return { tenantId, executionId, flowId, flowHash };
}
