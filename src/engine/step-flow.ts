import type { Flow } from '../flow/flow.js';
import { FlowError } from '../errors/flow-errors.js';
import type { EngineOptions } from './engine-options.js';
import { hookError } from './hooks.js';
import { checkFlowBudget, entryNode, settleFailure } from './run-loop.js';
import { runNode } from './run-node.js';
import { newTopLevelExecution } from './start-execution.js';
import { makeStep, type Step, syntheticEndStep } from './step.js';
import { successor } from './successor.js';
import { toFlow, type FlowSource } from './to-flow.js';

/**
 * Step-by-step mode (docs/flow-format.md §6.4): one step per executed node, `start` included. Time the
 * consumer spends between steps counts against the flow budget; closing the generator early
 * ends the execution (`onFlowEnd` with result null).
 */
export async function* stepFlow(
  source: FlowSource,
  input?: unknown,
  options?: EngineOptions,
): AsyncGenerator<Step, void, undefined> {
  const flow: Flow = toFlow(source, options);
  const execution = newTopLevelExecution(flow, input, options, 'step');
  let ended = false;
  try {
    await execution.fire('onFlowStart', {});
    let node = entryNode(execution);
    for (;;) {
      const result = await runNode(execution, node);
      const isEnd = node.def.type === 'end';
      if (isEnd) {
        ended = true;
        await execution.fire('onFlowEnd', { result });
      }
      yield makeStep(execution, node, result);
      if (isEnd) return;
      checkFlowBudget(execution, node);
      const next = successor(execution, node, result);
      if (next.kind === 'escape') {
        const step = syntheticEndStep(execution);
        ended = true;
        await execution.fire('onFlowEnd', { result: step.result });
        yield step;
        return;
      }
      if (next.kind === 'end') return;
      node = next.node;
    }
  } catch (error) {
    const failure = settleFailure(execution, error);
    if (!ended && failure instanceof FlowError) {
      ended = true;
      await execution.fire('onFlowEnd', { error: hookError(failure) });
    }
    throw failure;
  } finally {
    if (!ended) await execution.fire('onFlowEnd', { result: null });
    execution.budget.dispose();
  }
}
