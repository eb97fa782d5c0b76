import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';
import { childFlowOf, collectionShape, evaluateItems, loadChildFlow } from './collection.js';

/**
 * docs/flow-format.md §3.9: runs the child per item with `{item, index}`. A condition, checked after
 * each iteration with `$LOOP-ITEM`, `$LOOP-INDEX` and `$LOOP-RESULT`, keeps the loop going
 * while it matches. Result: the last child result.
 */
export const loopNode = builtinNode({
  type: 'loop',
  runsOnlyChildren: true,
  schema: z.looseObject({
    ...collectionShape,
    condition: z.unknown().optional(),
    itemType: z.unknown().optional(),
    typeDefs: z.unknown().optional(),
  }),
  load: (raw, loader) => ({
    collection: raw.collection ?? null,
    childFlow: loadChildFlow(raw, loader),
    condition: loader.condition(raw.condition, 'condition'),
  }),
  async run(ctx) {
    const items = await evaluateItems(ctx);
    const flow = childFlowOf(ctx.def);
    let last: unknown = null;
    for (let index = 0; index < items.length; index++) {
      ctx.throwIfAborted();
      const item = items[index];
      last = await ctx.runChild(flow, { item, index }, index);
      const { condition } = ctx.def;
      if (
        condition &&
        !(await ctx.matches(condition, {
          '$LOOP-ITEM': item,
          '$LOOP-INDEX': index,
          '$LOOP-RESULT': last,
        }))
      )
        break;
    }
    return last;
  },
});
