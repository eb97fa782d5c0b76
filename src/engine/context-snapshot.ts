import { cloneValue } from '../util/copy-value.js';
import { setOwn } from '../util/own-record.js';
import type { Context } from '../expression/scope.js';

/**
 * Checkpoints without deep copies: `$NODE` results never change once written, so a snapshot
 * copies the top level and the two maps the engine writes (`$NODE`, `$VISITS`) and shares the
 * rest. The one exception, a mutating `$F` function, makes the engine clone the live context
 * first (`Execution.beforeMutation`), so a snapshot never changes after it was taken.
 */
export function snapshotContext(context: Context): Context {
  const copy: Context = { ...context };
  if (isRecord(context.$NODE)) copy.$NODE = { ...context.$NODE };
  if (isRecord(context.$VISITS)) copy.$VISITS = { ...context.$VISITS };
  return copy;
}

/** A deep copy of the context ({@link cloneValue}): what a mutating `$F` call may change. */
export function cloneContext(context: Context, kept?: string): Context {
  if (kept === undefined) return cloneValue(context, new Map()) as Context;
  // One root kept as it is (a child's `$PARENT`: read-only, and the whole parent's context —
  // copying it per child made a loop of children quadratic).
  const seen = new Map<object, unknown>();
  const out: Context = {};
  for (const key of Object.keys(context))
    setOwn(out, key, key === kept ? context[key] : cloneValue(context[key], seen));
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
