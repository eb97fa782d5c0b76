import type { ExecutionState } from '../state/execution-state.js';
import { isTerminal } from '../state/execution-state.js';
import type { ApiServices } from './api-services.js';
import { executionView, type ExecutionView } from './execution-view.js';
import { ApiProblem } from './problem.js';

/** The execution of this tenant, or 404 (another tenant's execution is 404 too, never 403). */
export async function loadExecution(
  services: ApiServices,
  tenantId: string,
  id: string,
): Promise<ExecutionState> {
  const state = await services.store.load(id, { tenantId });
  if (!state) throw new ApiProblem('not_found', `no execution ${id}`);
  return state;
}

/** The whole view, with node types from the pinned definition (absent: types are null). */
export async function viewOf(services: ApiServices, state: ExecutionState): Promise<ExecutionView> {
  const flow = await services.resolver
    .byHash(state.flowHash, { tenantId: state.tenantId })
    .catch(() => null);
  const meta = await services.control.get<{ replayOf?: string }>({
    collection: 'execution_meta',
    tenant: state.tenantId,
    id: state.executionId,
  });
  return executionView(state, flow, meta?.doc.replayOf ?? null);
}

/**
 * Holds until the execution settles — terminal, or waiting for an event that came after
 * `sinceVersion` — or the wait ends; returns the state as it is then.
 */
export async function waitToSettle(
  services: ApiServices,
  state: ExecutionState,
  waitMs: number,
  sinceVersion = 0,
): Promise<ExecutionState> {
  const deadline = Date.now() + waitMs;
  let current = state;
  for (let pause = 10; ; pause = Math.min(pause * 2, 100)) {
    if (
      isTerminal(current.status) ||
      (current.status === 'suspended' && current.version > sinceVersion)
    )
      return current;
    if (Date.now() >= deadline) return current;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(pause, Math.max(1, deadline - Date.now()))),
    );
    current =
      (await services.store.load(current.executionId, { tenantId: current.tenantId })) ?? current;
  }
}
