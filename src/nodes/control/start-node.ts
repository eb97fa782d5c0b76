import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';

/** docs/flow-format.md §3.1: the entry; result null. */
export const startNode = builtinNode({
  type: 'start',
  inert: true,
  schema: z.looseObject({}),
  load: () => ({}),
  run: () => null,
});
