import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';
import { childFlowOf, collectionShape, evaluateItems, loadChildFlow } from './collection.js';
import { EmptyReduceError } from '../../errors/node-errors.js';

/**
 * docs/flow-format.md §3.13: folds the collection through the child. Without `initial` the first item
 * seeds the accumulator. The child sees `{first: acc, second: item}`, or `[acc, item]` when its
 * `inputType` is an array.
 */
export const reduceNode = builtinNode({
  type: 'reduce',
  runsOnlyChildren: true,
  schema: z.looseObject({ ...collectionShape, initial: z.unknown().optional() }),
  load: (raw, loader) => ({
    collection: raw.collection ?? null,
    childFlow: loadChildFlow(raw, loader),
    initial: raw.initial ?? null,
  }),
  async run(ctx) {
    const items = await evaluateItems(ctx);
    const flow = childFlowOf(ctx.def);
    const asArray = flow.inputType?.dataType === 'array';
    let acc = ctx.def.initial === null ? null : await ctx.evaluate(ctx.def.initial);
    let start = 0;
    if (acc === null) {
      if (items.length === 0)
        throw new EmptyReduceError('reduce of an empty collection without an initial value');
      acc = items[0];
      start = 1;
    }
    for (let index = start; index < items.length; index++) {
      ctx.throwIfAborted();
      const item = items[index];
      acc = await ctx.runChild(flow, asArray ? [acc, item] : { first: acc, second: item }, index);
    }
    return acc;
  },
});
