import { z } from 'zod';
import type { FlowLoader } from '../../flow/flow-loader.js';
import type { NodeContext } from '../../flow/node-type.js';
import { isTruthy } from '../../expression/values.js';
import { builtinNode } from '../builtin-node.js';
import { childFlowOf, collectionShape, evaluateItems, loadChildFlow } from './collection.js';

const schema = z.looseObject(collectionShape);

type CollectionContext = NodeContext<ReturnType<typeof itemsWithChildFlow.load>>;

/** What filter and find share: a collection, and the child flow each item is given to. */
const itemsWithChildFlow = {
  runsOnlyChildren: true,
  schema,
  load: (raw: z.infer<typeof schema>, loader: FlowLoader) => ({
    collection: raw.collection ?? null,
    childFlow: loadChildFlow(raw, loader),
  }),
};

/**
 * The items whose child flow answers truthy (Python truthiness, §5.7), in order, each run only
 * when the caller asks for the next: `find` stops at the first.
 */
async function* truthyItems(ctx: CollectionContext): AsyncGenerator<unknown> {
  const items = await evaluateItems(ctx);
  const flow = childFlowOf(ctx.def);
  for (let index = 0; index < items.length; index++) {
    ctx.throwIfAborted();
    const item = items[index];
    if (isTruthy(await ctx.runChild(flow, { item, index }, index))) yield item;
  }
}

/** docs/flow-format.md §3.12: the items whose child result is truthy. */
export const filterNode = builtinNode({
  type: 'filter',
  ...itemsWithChildFlow,
  async run(ctx) {
    const kept: unknown[] = [];
    for await (const item of truthyItems(ctx)) kept.push(item);
    return kept;
  },
});

/** docs/flow-format.md §3.12: the first item whose child result is truthy, else null. */
export const findNode = builtinNode({
  type: 'find',
  ...itemsWithChildFlow,
  async run(ctx) {
    for await (const item of truthyItems(ctx)) return item;
    return null;
  },
});
