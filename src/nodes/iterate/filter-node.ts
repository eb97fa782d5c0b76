import { z } from 'zod';
import { isTruthy } from '../../expression/values.js';
import { builtinNode } from '../builtin-node.js';
import { childFlowOf, collectionShape, evaluateItems, loadChildFlow } from './collection.js';

/** docs/flow-format.md §3.12: the items whose child result is truthy (Python truthiness, §5.7). */
export const filterNode = builtinNode({
  type: 'filter',
  runsOnlyChildren: true,
  schema: z.looseObject(collectionShape),
  load: (raw, loader) => ({
    collection: raw.collection ?? null,
    childFlow: loadChildFlow(raw, loader),
  }),
  async run(ctx) {
    const items = await evaluateItems(ctx);
    const flow = childFlowOf(ctx.def);
    const kept: unknown[] = [];
    for (let index = 0; index < items.length; index++) {
      ctx.throwIfAborted();
      const item = items[index];
      if (isTruthy(await ctx.runChild(flow, { item, index }, index))) kept.push(item);
    }
    return kept;
  },
});

/** docs/flow-format.md §3.12: the first item whose child result is truthy, else null. */
export const findNode = builtinNode({
  type: 'find',
  runsOnlyChildren: true,
  schema: z.looseObject(collectionShape),
  load: (raw, loader) => ({
    collection: raw.collection ?? null,
    childFlow: loadChildFlow(raw, loader),
  }),
  async run(ctx) {
    const items = await evaluateItems(ctx);
    const flow = childFlowOf(ctx.def);
    for (let index = 0; index < items.length; index++) {
      ctx.throwIfAborted();
      const item = items[index];
      if (isTruthy(await ctx.runChild(flow, { item, index }, index))) return item;
    }
    return null;
  },
});
