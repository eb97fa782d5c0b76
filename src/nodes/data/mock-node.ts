import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';

/** docs/flow-format.md §3.15: `value` verbatim, never evaluated. */
export const mockNode = builtinNode({
  type: 'mock',
  schema: z.looseObject({ value: z.unknown().optional() }),
  load: (raw) => ({ value: raw.value ?? null }),
  run: (ctx) => ctx.def.value,
});
