import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';

/** docs/flow-format.md §3.5: `next` (default the literal id "true") when the condition matches, else `else_next` ("false"). */
export const ifNode = builtinNode({
  type: 'if',
  inert: true,
  branching: true,
  schema: z.looseObject({
    condition: z.unknown().optional(),
    else_next: z.string().nullable().optional(),
  }),
  load(raw, loader) {
    const next = (raw as { next?: unknown }).next;
    return {
      condition: loader.condition(raw.condition, 'condition'),
      whenTrue: typeof next === 'string' && next !== '' ? next : 'true',
      whenFalse: raw.else_next ?? 'false',
    };
  },
  targets: (def) => [def.whenTrue, def.whenFalse],
  async run(ctx) {
    const { condition, whenTrue, whenFalse } = ctx.def;
    return condition && (await ctx.matches(condition)) ? whenTrue : whenFalse;
  },
});
