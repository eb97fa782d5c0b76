import { z } from 'zod';
import { builtinNode, pick } from '../builtin-node.js';
import { childFlowOf, collectionShape, loadChildFlow } from './collection.js';

const DEFAULT_MAX_ITERATIONS = 1000;

/**
 * flows.md §3.10: before each round the condition sees `$LOOP-ITEM` (the previous result) and
 * `$LOOP-INDEX`; the loop stops when it does not match or at `maxIterations`. Without a
 * condition exactly one round runs.
 */
export const whileNode = builtinNode({
  type: 'while',
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
    const flow = childFlowOf(ctx.def);
    let previous: unknown = null;
    for (let index = 0; ; index++) {
      ctx.throwIfAborted();
      if (
        condition === null
          ? index >= 1
          : !(await ctx.matches(condition, { '$LOOP-ITEM': previous, '$LOOP-INDEX': index }))
      )
        break;
      if (index >= maxIterations) {
        ctx.warn(`while loop stopped at maxIterations (${maxIterations})`);
        break;
      }
      previous = await ctx.runChild(flow, { item: previous, index }, index);
    }
    return previous;
  },
});
