import type { ExecutionState } from '../state/execution-state.js';
import { isTerminal } from '../state/execution-state.js';
import { silentLogger } from '../util/logger.js';
import { FlowWorker } from '../worker/flow-worker.js';
import { CliError, EXIT } from './exit-codes.js';
import type { Runtime } from './runtime.js';

/**
 * The embedded tier has no worker daemon: the command that enqueued the work drives it,
 * with an in-process worker on the same store and queue, until the execution settles
 * (ends, or suspends again after `sinceVersion`).
 */
export async function driveUntilSettled(
  runtime: Runtime,
  executionId: string,
  sinceVersion: number,
  timeoutMs = numberOr(process.env.PLAITA_RUN_TIMEOUT_MS, 24 * 3600_000),
): Promise<ExecutionState> {
  const worker = new FlowWorker({
    store: runtime.store,
    queue: runtime.queue,
    flows: runtime.flows,
    registry: runtime.registry,
    concurrency: 4,
    pollBlockMs: 25,
    logger: silentLogger,
  });
  worker.start();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await runtime.client.get(executionId);
      if (
        state &&
        (isTerminal(state.status) || (state.status === 'suspended' && state.version > sinceVersion))
      )
        return state;
      if (Date.now() > deadline)
        throw new CliError(
          `execution ${executionId} did not settle within ${timeoutMs} ms (PLAITA_RUN_TIMEOUT_MS)`,
          EXIT.failed,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await worker.stop();
  }
}

function numberOr(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 ? n : fallback;
}
