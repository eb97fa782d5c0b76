import { errorCode } from '../errors/plaita-error.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { ExecutionStatus } from '../state/execution-state.js';
import type { ExecutionStore, ExecutionSummary } from '../store/execution-store.js';

export interface ReapOptions {
  tenantId?: string;
  /** Executions with no lease and no progress for this long are re-enqueued (default 10 min). */
  idleMs?: number;
  now?: number;
  /** At most this many per call (default 1000). */
  limit?: number;
}

/**
 * `plaita reap` (docs/durable-contract.md §6): finds `running` (and `queued`) executions with no lease and no
 * progress for `idle`, and re-enqueues `run` so they continue from their checkpoint (ours also:
 * `suspended` ones whose timer is overdue by `idle`). It never throws progress away; repeated
 * crashes end in `node_crash_loop` at the worker.
 */
export async function reapStale(
  store: ExecutionStore,
  queue: TaskQueue,
  options: ReapOptions = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const idleMs = options.idleMs ?? 10 * 60_000;
  const scan: Scan = {
    store,
    queue,
    tenantId: options.tenantId,
    limit: options.limit ?? 1000,
    reaped: [],
  };
  await reapEach(
    scan,
    ['running', 'queued'],
    (item) => now - Date.parse(item.updatedAt) >= idleMs,
    (item) => unreadable(store, item),
  );
  // A `suspended` execution whose timer is overdue by `idle` lost it (a Redis failover that
  // dropped the delayed entry, a timer message purged from the dead letters): it would wait for
  // ever. `run` on a suspended execution re-arms its timer (idempotent while the first is still
  // pending; a second that fires finds the visit over and does nothing). Executions that wait
  // for an event only have no timer to lose and are left alone.
  await reapEach(scan, ['suspended'], (item) => {
    const dueAt = item.waiting?.dueAt;
    return dueAt !== null && dueAt !== undefined && now - Date.parse(dueAt) >= idleMs;
  });
  return scan.reaped;
}

interface Scan {
  store: ExecutionStore;
  queue: TaskQueue;
  tenantId: string | undefined;
  limit: number;
  reaped: string[];
}

/**
 * Enqueues `run` for each execution of `statuses` that is `due`, holds no lease and is not
 * `skipped`, until `limit` in all are reaped.
 */
async function reapEach(
  { store, queue, tenantId, limit, reaped }: Scan,
  statuses: ExecutionStatus[],
  due: (item: ExecutionSummary) => boolean,
  skipped?: (item: ExecutionSummary) => Promise<boolean>,
): Promise<void> {
  let cursor: string | null = null;
  do {
    const page = await store.list({
      ...(tenantId ? { tenantId } : {}),
      status: statuses,
      limit: 200,
      cursor,
    });
    for (const item of page.items) {
      if (reaped.length >= limit) return;
      if (!due(item)) continue;
      if (await store.getLease(item.executionId, { tenantId: item.tenantId })) continue;
      if (skipped && (await skipped(item))) continue;
      await queue.enqueue({
        v: 1,
        kind: 'run',
        executionId: item.executionId,
        tenantId: item.tenantId,
      });
      reaped.push(item.executionId);
    }
    cursor = page.nextCursor;
  } while (cursor);
}

/**
 * A record whose state cannot be read was dead-lettered (state_corrupt, nothing written over it)
 * when a worker met it, and stays `running` for an operator. Enqueued again on every pass it
 * would only add dead letters, and the dead-letter list is capped: real ones would be pushed out.
 */
async function unreadable(
  store: ExecutionStore,
  item: { executionId: string; tenantId: string },
): Promise<boolean> {
  try {
    await store.load(item.executionId, { tenantId: item.tenantId });
    return false;
  } catch (error) {
    if (errorCode(error) === 'state_corrupt') return true;
    throw error;
  }
}
