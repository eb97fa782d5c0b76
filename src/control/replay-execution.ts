import { checkpointInput } from '../state/checkpoint-context.js';
import { randomUUID } from 'node:crypto';
import type { ExecutionState } from '../state/execution-state.js';
import type { PlaitaClient } from '../client/plaita-client.js';
import type { ControlStore } from '../store/control-store.js';
import type { FlowStore, StoredFlow } from '../store/flow-store.js';
import { ConflictError } from '../errors/control-errors.js';

/**
 * A new execution of the definition `original` pinned (by hash), with its input or an edited
 * one; the new execution records what it replays (docs/http-api.md §4 replay). With
 * `executionId` (a bulk operation's, made from its own id) a repeated replay starts nothing new.
 */
export async function replayExecution(
  services: { flows: FlowStore; control: ControlStore; client: PlaitaClient },
  original: ExecutionState,
  input?: Record<string, unknown>,
  executionId: string = randomUUID(),
): Promise<string> {
  const tenantId = original.tenantId;
  const pinned = await pinnedFlow(services.flows, original);
  // Recorded first: the new execution's view names what it replays from its first read.
  await services.control.put(
    { collection: 'execution_meta', tenant: tenantId, id: executionId },
    { replayOf: original.executionId },
  );
  await services.client.start(
    pinned.document,
    input ?? ((checkpointInput(original.context) ?? {}) as Record<string, unknown>),
    { executionId, tenantId },
  );
  return executionId;
}

/** The definition an execution ran, by its hash; null when it has none or it is gone. */
export async function storedPinnedFlow(
  flows: FlowStore,
  execution: ExecutionState,
): Promise<StoredFlow | null> {
  return execution.flowHash
    ? flows.getByHash(execution.flowHash, { tenantId: execution.tenantId })
    : null;
}

/**
 * The definition an execution ran: what a replay or a rerun starts again. ConflictError when it
 * is no longer stored.
 */
export async function pinnedFlow(flows: FlowStore, original: ExecutionState): Promise<StoredFlow> {
  const pinned = await storedPinnedFlow(flows, original);
  if (!pinned)
    throw new ConflictError(
      `the definition execution ${original.executionId} ran (${original.flowHash ?? 'none'}) is no longer stored`,
    );
  return pinned;
}
