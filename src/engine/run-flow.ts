import type { EngineOptions } from './engine-options.js';
import { runExecution } from './run-loop.js';
import { newTopLevelExecution } from './start-execution.js';
import { toFlow, type FlowSource } from './to-flow.js';

/**
 * Run mode (docs/flow-format.md §6.3): runs the flow to an end node in process. Resolves with the flow
 * result; rejects with a FlowError (`code`, `type`, `node`, `message`).
 */
export async function runFlow(
  source: FlowSource,
  input?: unknown,
  options?: EngineOptions,
): Promise<unknown> {
  // async: a definition error or a bad input rejects the promise rather than throwing synchronously.
  const flow = toFlow(source, options);
  const execution = newTopLevelExecution(flow, input, options, 'run');
  return runExecution(execution);
}
