import type { DeadLetter } from '../queue/task-queue.js';
import type { ExecutionStore } from '../store/execution-store.js';

/**
 * Why replaying this dead letter could only dead-letter it again, or null when a worker may
 * yet handle it. Only what no worker of any version can get past is refused: a payload that is
 * not a JSON object naming an execution, or an execution the store no longer has (deleted, or
 * never stored). A message this build does not understand (a newer `v`, an unknown kind) is
 * not refused: the workers it is replayed to may be newer than the caller.
 */
export async function hopelessReplay(
  letter: DeadLetter,
  store: ExecutionStore,
): Promise<string | null> {
  let message: unknown;
  try {
    message = JSON.parse(letter.payload);
  } catch {
    return `dead letter ${letter.id} holds a message that is not JSON: no worker can read it`;
  }
  const { executionId, tenantId } = (message ?? {}) as {
    executionId?: unknown;
    tenantId?: unknown;
  };
  if (typeof executionId !== 'string' || typeof tenantId !== 'string')
    return `dead letter ${letter.id} holds a message that names no execution (executionId and tenantId): no worker can handle it`;
  if ((await store.load(executionId, { tenantId })) === null)
    return `dead letter ${letter.id} is for execution ${executionId}, which is not stored (deleted, or never written): a replay would be dead-lettered again as unknown_execution`;
  return null;
}
