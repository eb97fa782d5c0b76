import { claimIdempotencyKey, keyedId } from '../control/idempotency.js';
import type { ExecutionState } from '../state/execution-state.js';
import type { ApiServices } from './api-services.js';
import { loadExecution, viewOf } from './execution-reads.js';
import type { ExecutionView } from './execution-view.js';

/** What {@link startOnce} answers: the execution's view, and whether an earlier request started it. */
export interface StartedOnce {
  executionId: string;
  view: ExecutionView;
  repeat: boolean;
}

/** Which derived start: `action` (`replay`, `rerun`) of `originalId`, under an optional key. */
export interface StartOnceAsk {
  tenantId: string;
  action: string;
  originalId: string;
  key: string | undefined;
}

/**
 * A start derived from another execution (a replay, a rerun) that an `Idempotency-Key` makes
 * happen once: the new execution's id follows from the key, the first request with it claims it,
 * and a repeat (a lost answer, a double click) gets the execution the first started. `start`
 * runs only for the first, with the id to use (undefined without a key: a fresh one), and
 * `audit` after it with the id it made: a repeat is not audited again.
 */
export async function startOnce(
  services: ApiServices,
  { tenantId, action, originalId, key }: StartOnceAsk,
  start: (executionId: string | undefined) => Promise<string>,
  audit: (executionId: string) => Promise<void>,
): Promise<StartedOnce> {
  const given =
    key === undefined ? undefined : keyedId(action, tenantId, `${originalId}\u0000${key}`);
  // The first request with the key claims it: a concurrent repeat waits for its execution.
  const claimed =
    given === undefined ||
    (await claimIdempotencyKey(services.control, tenantId, `${action}:${originalId}:${key!}`, {
      executionId: given,
    })) !== null;
  const repeat = claimed ? null : await startedBy(services, tenantId, given);
  if (repeat !== null)
    return { executionId: repeat.executionId, view: await viewOf(services, repeat), repeat: true };
  const executionId = await start(given);
  await audit(executionId);
  const state = await loadExecution(services, tenantId, executionId);
  return { executionId, view: await viewOf(services, state), repeat: false };
}

/**
 * The execution a first request with the same key started: it may still be starting
 * (concurrent requests), so it is waited for a little; null when it never appeared (the first
 * failed), and this request then starts it with the same id (which starts one at most).
 */
async function startedBy(
  services: ApiServices,
  tenantId: string,
  executionId: string,
): Promise<ExecutionState | null> {
  for (let waited = 0; waited <= 5000; waited += 50) {
    const state = await services.store.load(executionId, { tenantId });
    if (state) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}
