import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';
import { eventTypeOf, pendingState, resumeSuspended } from './suspend-state.js';

/** docs/flow-format.md §3.18 `event`: waits for an event of `event_type` matching `event_filter`. */
export const eventNode = builtinNode({
  type: 'event',
  suspending: true,
  schema: z.looseObject({
    event_type: z.string().min(1),
    event_filter: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
  load: (raw) => ({ eventType: raw.event_type, eventFilter: raw.event_filter ?? {} }),
  async run(ctx) {
    return pendingState(ctx, await eventTypeOf(ctx, ctx.def.eventType), ctx.def.eventFilter);
  },
  resume: resumeSuspended,
});
