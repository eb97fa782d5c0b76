import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';

/** docs/flow-format.md §3.5: `next` (default the literal id "true") when the condition matches, else `else_next` ("false"). */
export const ifNode = builtinNode({
  type: 'if',
  inert: true,
  branching: true,
  schema: z.looseObject({
    condition: z.unknown().optional(),
    // Node ids may be YAML numbers (§2.1), so a target may be one too.
    else_next: z.union([z.string(), z.number()]).nullable().optional(),
  }),
  load(raw, loader) {
    const next = (raw as { next?: unknown }).next;
    return {
      condition: loader.condition(raw.condition, 'condition'),
      whenTrue: targetOf(next) ?? 'true',
      whenFalse: targetOf(raw.else_next) ?? 'false',
    };
  },
  targets: (def) => [
    { to: def.whenTrue, label: 'true' },
    { to: def.whenFalse, label: 'false' },
  ],
  async run(ctx) {
    const { condition, whenTrue, whenFalse } = ctx.def;
    return condition && (await ctx.matches(condition)) ? whenTrue : whenFalse;
  },
});

/** A written target: a non-empty string, or a number (a YAML id) as its string. */
function targetOf(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : null;
}
