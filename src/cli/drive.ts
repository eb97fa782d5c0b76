import type { ExecutionState } from '../state/execution-state.js';
import { isTerminal, isWaitingQuietly } from '../state/execution-state.js';
import { silentLogger } from '../util/logger.js';
import { FlowWorker } from '../worker/flow-worker.js';
import { errorCode } from '../errors.js';
import { CliError, EXIT } from './exit-codes.js';
import { limitsFromEnv } from './operator-limits.js';
import { numberEnv, type Runtime } from './runtime.js';

/**
 * The embedded tier has no worker daemon: the command that enqueued the work drives it,
 * with an in-process worker on the same store and queue, until the execution settles
 * (ends, or suspends again after `sinceVersion`).
 */
export async function driveUntilSettled(
  runtime: Runtime,
  executionId: string,
  sinceVersion: number,
  timeoutMs = numberEnv('PLAITA_RUN_TIMEOUT_MS') || 24 * 3600_000,
): Promise<ExecutionState> {
  const worker = new FlowWorker({
    store: runtime.store,
    queue: runtime.queue,
    flows: runtime.flows,
    registry: runtime.registry,
    concurrency: 4,
    pollBlockMs: 25,
    logger: silentLogger,
    engine: { limits: limitsFromEnv() },
  });
  worker.start();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await runtime.client.get(executionId);
      if (
        state &&
        (isTerminal(state.status) || (isWaitingQuietly(state) && state.version > sinceVersion))
      )
        return state;
      if (Date.now() > deadline) {
        const ended = await cancelOnTimeout(runtime, executionId);
        throw new CliError(
          `execution ${executionId} did not settle within ${timeoutMs} ms (PLAITA_RUN_TIMEOUT_MS); ` +
            (ended ? 'it was cancelled' : 'cancelling it was requested'),
          EXIT.failed,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await worker.stop();
  }
}

/**
 * A run that overstays its time is cancelled, never left `running` with nobody driving it: the
 * worker sees the request between nodes (and the node's signal fires). True once it is terminal.
 */
async function cancelOnTimeout(runtime: Runtime, executionId: string): Promise<boolean> {
  try {
    await runtime.client.cancel(executionId, { reason: 'PLAITA_RUN_TIMEOUT_MS elapsed' });
  } catch (error) {
    if (errorCode(error) !== 'execution_terminal') throw error;
    return true;
  }
  const until = Date.now() + CANCEL_GRACE_MS;
  while (Date.now() < until) {
    const state = await runtime.client.get(executionId);
    if (!state || isTerminal(state.status)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** How long a timed-out run waits for its cancel to land before the worker is stopped. */
const CANCEL_GRACE_MS = 10_000;
