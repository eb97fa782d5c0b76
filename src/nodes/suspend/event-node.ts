import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';
import { pendingState, resumeSuspended } from './suspend-state.js';

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
    let eventType = ctx.def.eventType;
    if (eventType.startsWith('$')) {
      try {
        const resolved = await ctx.evaluate(eventType);
        // A `$` reference must give a non-empty string; otherwise the raw text is kept.
        if (typeof resolved === 'string' && resolved !== '') eventType = resolved;
      } catch {
        ctx.warn(`event_type ${eventType} could not be evaluated; the raw text is kept`);
      }
    }
    return pendingState(ctx, eventType, ctx.def.eventFilter);
  },
  resume: resumeSuspended,
});
