import { z } from 'zod';
import { builtinNode, pick } from '../builtin-node.js';
import { childFlowOf } from '../iterate/collection.js';
import { checkChildInput } from './child-input.js';

/** docs/flow-format.md §3.7: runs the embedded flow with the evaluated `input`; result: its result. */
export const childNode = builtinNode({
  type: 'child',
  runsOnlyChildren: true,
  schema: z.looseObject({
    input: z.unknown().optional(),
    childFlow: z.unknown().optional(),
    child_flow: z.unknown().optional(),
  }),
  load: (raw, loader) => ({
    input: raw.input ?? null,
    childFlow: loader.requiredChildFlow(
      pick(raw.childFlow, raw.child_flow),
      raw.childFlow === undefined && raw.child_flow !== undefined ? 'child_flow' : 'childFlow',
    ),
  }),
  async run(ctx) {
    const flow = childFlowOf(ctx.def);
    const input = await ctx.evaluate(ctx.def.input);
    checkChildInput(flow, input);
    return ctx.runChild(flow, input, 0);
  },
});
