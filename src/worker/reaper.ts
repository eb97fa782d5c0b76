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
  return reaped;
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
