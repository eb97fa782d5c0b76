import { z } from 'zod';
import { builtinNode } from '../builtin-node.js';
import { eventTypeOf, resumeSuspended, serviceState, serviceValue } from './suspend-state.js';

const UNIT_MS = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;
type DelayUnit = keyof typeof UNIT_MS;
const DEFAULT_DELAY = 60;

/** docs/flow-format.md §3.18 `delay`: a durable timer; the host fires `delay_trigger` at `trigger_timestamp`. */
export const delayNode = builtinNode({
  type: 'delay',
  suspending: true,
  schema: z.looseObject({
    delay_seconds: z.union([z.number(), z.string()]),
    delay_unit: z
      .string()
      .refine((u) => u.toLowerCase() in UNIT_MS, {
        error: 'expected seconds | minutes | hours | days',
      })
      .optional(),
    event_type: z.string().optional(),
    event_filter: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
  load: (raw) => ({
    delaySeconds: raw.delay_seconds,
    delayUnit: (raw.delay_unit?.toLowerCase() ?? 'seconds') as DelayUnit,
    eventType: raw.event_type ?? 'delay_trigger',
    eventFilter: raw.event_filter ?? {},
  }),
  async run(ctx) {
    const amount = toNumber(await serviceValue(ctx, ctx.def.delaySeconds));
    const delayMs = Math.round(amount * UNIT_MS[ctx.def.delayUnit]);
    const now = ctx.clock.now();
    return serviceState(
      ctx,
      await eventTypeOf(ctx, ctx.def.eventType),
      ctx.def.eventFilter,
      { delay_ms: delayMs, trigger_timestamp: now + delayMs },
      now,
    );
  },
  resume: resumeSuspended,
  wait: () => ({ delay: true, timerData: delayTimerData }),
});

/** The delay a timer's `delay_completed` event reports: the one this visit planned. */
function delayTimerData(suspended: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const config = suspended.service_config as { delay_ms?: unknown } | undefined;
  return { delay_ms: typeof config?.delay_ms === 'number' ? config.delay_ms : null };
}

/** A failing or non-numeric amount means 60 (docs/flow-format.md §3.18). */
function toNumber(value: unknown): number {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : NaN;
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_DELAY;
}
