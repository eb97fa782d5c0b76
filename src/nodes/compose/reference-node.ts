import { z } from 'zod';
import { builtinNode, pick } from '../builtin-node.js';
import { checkChildInput } from './child-input.js';
import { FlowNotResolvedError } from '../../errors/node-errors.js';

/** docs/flow-format.md §3.8: a child flow obtained from the host's resolver by id and version. */
export const referenceNode = builtinNode({
  type: 'reference',
  schema: z.looseObject({
    input: z.unknown().optional(),
    flow_id: z.string().optional(),
    flowID: z.string().optional(),
    flow_version: z.union([z.string(), z.number()]).nullable().optional(),
    flowVersion: z.union([z.string(), z.number()]).nullable().optional(),
    childFlow: z.unknown().optional(),
    child_flow: z.unknown().optional(),
  }),
  load(raw, loader) {
    const flowId = pick(raw.flow_id, raw.flowID);
    if (flowId === undefined) loader.issue('flow_id', 'a reference node needs "flow_id"');
    if (pick(raw.childFlow, raw.child_flow) !== undefined)
      loader.warn('an inline childFlow on a reference node is ignored');
    const version = pick(raw.flow_version, raw.flowVersion);
    return {
      input: raw.input ?? null,
      flowId: flowId ?? '',
      flowVersion: version === undefined || version === null ? null : String(version),
    };
  },
  async run(ctx) {
    const { flowId, flowVersion } = ctx.def;
    const flow = await ctx.resolveFlow(flowId, flowVersion);
    if (!flow) {
      throw new FlowNotResolvedError(
        ctx.options.resolveFlow
          ? `flow '${flowId}'${flowVersion ? ` version ${flowVersion}` : ''} was not found`
          : `no flow resolver is configured to find flow '${flowId}'`,
      );
    }
    const input = await ctx.evaluate(ctx.def.input);
    checkChildInput(flow, input);
    return ctx.runChild(flow, input, 0);
  },
});
