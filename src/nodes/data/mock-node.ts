import { z } from 'zod';
import { copyValue } from '../../util/copy-value.js';
import { builtinNode } from '../builtin-node.js';

/**
 * docs/flow-format.md §3.15: `value` verbatim, never evaluated. A copy per run: the result is
 * the execution's to change (a mutating `$F`), the definition is every later run's.
 */
export const mockNode = builtinNode({
  type: 'mock',
  schema: z.looseObject({ value: z.unknown().optional() }),
  load: (raw) => ({ value: raw.value ?? null }),
  run: (ctx) => copyValue(ctx.def.value),
});
