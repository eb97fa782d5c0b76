import { z } from 'zod';
import type { Flow } from '../../flow/flow.js';
import type { NodeContext } from '../../flow/node-type.js';
import { builtinNode, pick } from '../builtin-node.js';
import { childFlowOf, collectionShape, evaluateItems, loadChildFlow } from './collection.js';

interface MapFields {
  collection: unknown;
  childFlow: Flow | null;
  concurrent: boolean;
  maxConcurrent: number | null;
}

/**
 * docs/flow-format.md §3.11: child results in input order. Concurrent children run at most
 * `maxConcurrent` at a time; the first failure fails the node and aborts the siblings.
 */
export const mapNode = builtinNode({
  type: 'map',
  runsOnlyChildren: true,
  schema: z.looseObject({
    ...collectionShape,
    concurrent: z.boolean().optional(),
    async: z.boolean().optional(),
    // 0 is no limit, as in the original (`max_concurrent or len(items)`).
    max_concurrent: z.number().int().nonnegative().nullable().optional(),
    maxConcurrent: z.number().int().nonnegative().nullable().optional(),
  }),
  load: (raw, loader): MapFields => ({
    collection: raw.collection ?? null,
    childFlow: loadChildFlow(raw, loader),
    concurrent: pick(raw.concurrent, raw.async) ?? false,
    maxConcurrent: pick(raw.max_concurrent, raw.maxConcurrent) || null,
  }),
  async run(ctx) {
    const items = await evaluateItems(ctx);
    const flow = childFlowOf(ctx.def);
    if (!ctx.def.concurrent) {
      const results: unknown[] = [];
      for (let index = 0; index < items.length; index++) {
        ctx.throwIfAborted();
        results.push(await ctx.runChild(flow, { item: items[index], index }, index));
      }
      return results;
    }
    return mapConcurrently(ctx, flow, items);
  },
});

async function mapConcurrently(
  ctx: NodeContext<MapFields>,
  flow: Flow,
  items: unknown[],
): Promise<unknown[]> {
  const results: unknown[] = new Array<unknown>(items.length);
  const siblings = new AbortController();
  const limit = Math.min(ctx.def.maxConcurrent ?? items.length, items.length);
  let nextIndex = 0;
  let firstError: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (firstError === null && nextIndex < items.length) {
      const index = nextIndex++;
      try {
        results[index] = await ctx.runChild(flow, { item: items[index], index }, index, {
          signal: siblings.signal,
        });
      } catch (error) {
        if (firstError === null) {
          firstError = { error };
          siblings.abort();
        }
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  if (firstError !== null) throw (firstError as { error: unknown }).error;
  return results;
}
