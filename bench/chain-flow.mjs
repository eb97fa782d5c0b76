// The benchmarks' workloads, one module so every tier and every peer runs the same chains:
//  - replayable: start, `steps` assignment nodes (pure expressions), end — chainFlowDocument;
//  - effectful: start, `steps` nodes of a custom type (bench_step) doing trivial work, end —
//    effectfulChainDocument. A custom type is effectful unless it declares otherwise
//    (NodeType.inert), so the runtime must checkpoint each step before the next runs.
// This module is also a plugin module (`plaita worker --nodes bench/chain-flow.mjs`): it exports
// `nodes`, so worker processes started by the CLI know bench_step too.
import { createDefaultRegistry, defineNode } from '../dist/index.js';

export const BENCH_STEP_TYPE = 'bench_step';

/** `{i: <from> + 1}`: reads the previous step's result, so a step cannot run without it. */
export const benchStepNode = defineNode({
  type: BENCH_STEP_TYPE,
  keys: ['from'],
  run(ctx) {
    const next = (previous) => ({ i: Number(previous) + 1 });
    const previous = ctx.evaluate(ctx.def.from);
    return previous instanceof Promise ? previous.then(next) : next(previous);
  },
});

/** The plugin-module shape `loadNodeModules` reads (docs/flow-format.md §9.4). */
export const nodes = [benchStepNode];

/** The built-ins plus bench_step: give it to every worker, client and parseFlow of the bench. */
export function benchRegistry() {
  return createDefaultRegistry().register(benchStepNode);
}

export function chainFlowDocument(flowId, steps) {
  return {
    flow_id: flowId,
    nodes: [
      { type: 'start', id: 'start', next: 'n0' },
      ...Array.from({ length: steps }, (_, s) => ({
        type: 'assignment',
        id: `n${s}`,
        output: { out: `$F.add($INPUT.i, ${s})` },
        next: s === steps - 1 ? 'end' : `n${s + 1}`,
      })),
      { type: 'end', id: 'end', output: '$NODE' },
    ],
  };
}

export function effectfulChainDocument(flowId, steps) {
  return {
    flow_id: flowId,
    nodes: [
      { type: 'start', id: 'start', next: 'n0' },
      ...Array.from({ length: steps }, (_, s) => ({
        type: BENCH_STEP_TYPE,
        id: `n${s}`,
        from: s === 0 ? '$INPUT.i' : `$NODE.n${s - 1}.i`,
        next: s === steps - 1 ? 'end' : `n${s + 1}`,
      })),
      { type: 'end', id: 'end', output: '$NODE' },
    ],
  };
}
