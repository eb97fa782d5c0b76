import { z } from 'zod';
import { builtinNode, pick } from '../builtin-node.js';
import { childFlowOf, collectionShape, loadChildFlow } from './collection.js';
import { IterationLimitError } from '../../errors/node-errors.js';

const DEFAULT_MAX_ITERATIONS = 1000;

/**
 * docs/flow-format.md §3.10: before each round the condition sees `$LOOP-ITEM` (the previous result) and
 * `$LOOP-INDEX`; the loop stops when it does not match or at `maxIterations`. Without a
 * condition exactly one round runs.
 */
export const whileNode = builtinNode({
  type: 'while',
  runsOnlyChildren: true,
  schema: z.looseObject({
    childFlow: collectionShape.childFlow,
    child_flow: collectionShape.child_flow,
    condition: z.unknown().optional(),
    max_iterations: z.number().int().min(0).optional(),
    maxIterations: z.number().int().min(0).optional(),
  }),
  load: (raw, loader) => ({
    childFlow: loadChildFlow(raw, loader),
    condition: loader.condition(raw.condition, 'condition'),
    maxIterations: pick(raw.max_iterations, raw.maxIterations) ?? DEFAULT_MAX_ITERATIONS,
  }),
  async run(ctx) {
    const { condition, maxIterations } = ctx.def;
    // The operator's ceiling bounds what a flow may ask for. Reaching it is an error, not the
    // flow's own quiet stop: the flow asked for more rounds than it got.
    const ceiling = ctx.options.limits.maxIterations;
    const flow = childFlowOf(ctx.def);
    let previous: unknown = null;
    for (let index = 0; ; index++) {
      ctx.throwIfAborted();
      if (condition === null && index >= 1) break;
      // The cap before the condition, as the original's `while index < max and cond`: at the
      // cap the condition is not evaluated (it may index past what the cap was sized for).
      if (index >= maxIterations) {
        ctx.warn(`while loop stopped at maxIterations (${maxIterations})`);
        break;
      }
      if (
        condition !== null &&
        !(await ctx.matches(condition, { '$LOOP-ITEM': previous, '$LOOP-INDEX': index }))
      )
        break;
      if (index >= ceiling) throw new IterationLimitError(ceiling, maxIterations);
      previous = await ctx.runChild(flow, { item: previous, index }, index);
    }
    return previous;
  },
});
