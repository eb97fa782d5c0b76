import type { EngineOptions } from '../engine/engine-options.js';
import { defaultFunctions } from '../expression/function-registry.js';
import { classifyReplay, type FlowReplay } from '../flow/analysis/replayability.js';
import type { Flow } from '../flow/flow.js';

/**
 * Which nodes of the flows this worker runs are replayable (flow/analysis/replayability.ts),
 * classified once per loaded flow with the worker's own `$F` functions. With engine hooks set
 * no node is: a hook is host code that a recomputed node would run again.
 */
export class ReplayableNodes {
  readonly #byFlow = new WeakMap<Flow, FlowReplay>();
  readonly #none: boolean;

  constructor(private readonly engine: EngineOptions) {
    const hooks = engine.hooks;
    this.#none = hooks !== undefined && (!Array.isArray(hooks) || hooks.length > 0);
  }

  has(flow: Flow, nodeId: string | null): boolean {
    if (this.#none || nodeId === null) return false;
    let verdicts = this.#byFlow.get(flow);
    if (verdicts === undefined) {
      verdicts = classifyReplay(flow, this.engine.functions ?? defaultFunctions);
      this.#byFlow.set(flow, verdicts);
    }
    return verdicts.get(nodeId)?.replayable === true;
  }
}
