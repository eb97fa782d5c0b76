import type { ExecutionState } from '../state/execution-state.js';
import { isTerminal, isWaitingQuietly } from '../state/execution-state.js';
import { silentLogger } from '../util/logger.js';
import { FlowWorker } from '../worker/flow-worker.js';
import { errorCode } from '../errors/plaita-error.js';
import { CliError, EXIT } from './exit-codes.js';
import { limitsFromEnv } from './operator-limits.js';
import { numberEnv, type Runtime } from './runtime.js';
import { storeFlag } from './store-url.js';

/**
 * The embedded tier has no worker daemon: the command that enqueued the work drives it,
 * with an in-process worker on the same store and queue, until the execution settles
 * (ends, or suspends again after `sinceVersion`).
 */
export async function driveUntilSettled(
  runtime: Runtime,
  executionId: string,
  sinceVersion: number,
  storeOption?: string,
): Promise<ExecutionState> {
  const timeoutMs = numberEnv('PLAITA_RUN_TIMEOUT_MS') || 24 * 3600_000;
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
  const stopInterrupt = explainInterrupt(
    executionId,
    runtime.target.kind === 'memory' ? null : storeFlag(storeOption),
  );
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
    stopInterrupt();
    await worker.stop();
  }
}

/**
 * Ctrl-C (or a TERM) while this command drives an execution: it stops at once, as a user
 * means it to, and says where the execution is and how it goes on, instead of exiting 130 with
 * no word and the execution `running` with nobody driving it. Nothing is lost: the last
 * checkpoint is stored, and the message this process held comes back after the visibility
 * timeout. Returns the remover of the handlers.
 */
function explainInterrupt(executionId: string, store: string | null): () => void {
  // The claim lapses with the lease (30 s) and the message's invisibility, the longer of them.
  const lapseS = Math.max(30_000, numberEnv('PLAITA_VISIBILITY_TIMEOUT_MS') ?? 0) / 1000;
  const onSignal = (signal: NodeJS.Signals): void => {
    process.stderr.write(
      store === null
        ? `\ninterrupted: execution ${executionId} is gone with this process (--store memory keeps nothing)\n`
        : `\ninterrupted: execution ${executionId} stays at its last checkpoint; ` +
            `\`plaita worker${store}\` continues it once this process's claim lapses (${lapseS} s), ` +
            `or \`plaita cancel ${executionId}${store}\` ends it\n`,
    );
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
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
