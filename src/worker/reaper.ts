import { errorCode } from '../errors.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { ExecutionStore } from '../store/execution-store.js';

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
 * progress for `idle`, and re-enqueues `run` so they continue from their checkpoint. It never
 * throws progress away; repeated crashes end in `node_crash_loop` at the worker.
 */
export async function reapStale(
  store: ExecutionStore,
  queue: TaskQueue,
  options: ReapOptions = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const idleMs = options.idleMs ?? 10 * 60_000;
  const limit = options.limit ?? 1000;
  const tenantId = options.tenantId;
  const reaped: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.list({
      ...(tenantId ? { tenantId } : {}),
      status: ['running', 'queued'],
      limit: 200,
      cursor,
    });
    for (const item of page.items) {
      if (reaped.length >= limit) return reaped;
      if (now - Date.parse(item.updatedAt) < idleMs) continue;
      if (await store.getLease(item.executionId, { tenantId: item.tenantId })) continue;
      if (await unreadable(store, item)) continue;
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
  await reapLostTimers(store, queue, { now, idleMs, limit, tenantId }, reaped);
  return reaped;
}

/**
 * A `suspended` execution whose timer is overdue by `idle` lost it (a Redis failover that
 * dropped the delayed entry, a timer message purged from the dead letters): it would wait for
 * ever. `run` on a suspended execution re-arms its timer (idempotent while the first is still
 * pending; a second that fires finds the visit over and does nothing). Executions that wait for
 * an event only have no timer to lose and are left alone.
 */
async function reapLostTimers(
  store: ExecutionStore,
  queue: TaskQueue,
  options: { now: number; idleMs: number; limit: number; tenantId: string | undefined },
  reaped: string[],
): Promise<void> {
  let cursor: string | null = null;
  do {
    const page = await store.list({
      ...(options.tenantId ? { tenantId: options.tenantId } : {}),
      status: ['suspended'],
      limit: 200,
      cursor,
    });
    for (const item of page.items) {
      if (reaped.length >= options.limit) return;
      const dueAt = item.waiting?.dueAt;
      if (!dueAt || options.now - Date.parse(dueAt) < options.idleMs) continue;
      if (await store.getLease(item.executionId, { tenantId: item.tenantId })) continue;
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
