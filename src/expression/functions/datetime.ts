import { type Clock, systemClock } from '../../util/clock.js';
import type { CallInfo } from '../call-info.js';
import type { FunctionRegistry } from '../function-registry.js';
import { callError, stringArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';
import { localTime } from './local-time.js';
import type { LocalTime } from './strftime.js';
import { strftime } from './strftime.js';

/** `now`/`today` read the evaluation's clock and zone (the scope, as call info). */
function format(fn: string, info: CallInfo | undefined, fmt: unknown, dateOnly: boolean): string {
  const pattern = stringArg(fn, fmt, 1);
  const timeZone = info?.timeZone;
  const clock: Clock = info?.clock ?? systemClock;
  let time: LocalTime;
  try {
    time = localTime(clock.now(), timeZone);
  } catch (error) {
    throw callError(fn, `invalid time zone ${JSON.stringify(timeZone)}`, error);
  }
  if (dateOnly) time = { ...time, hour: 0, minute: 0, second: 0, millisecond: 0 };
  try {
    return strftime(time, pattern);
  } catch (error) {
    throw callError(fn, (error as Error).message, error);
  }
}

function now(this: CallInfo | undefined, fmt: unknown = '%Y-%m-%d %H:%M:%S'): string {
  return format('now', this, fmt, false);
}

function today(this: CallInfo | undefined, fmt: unknown = '%Y-%m-%d'): string {
  return format('today', this, fmt, true);
}

export function registerDatetimeFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'datetime', {
    now: {
      fn: now,
      minArgs: 0,
      maxArgs: 1,
      deterministic: false,
      description: 'Current local date-time, formatted',
    },
    today: {
      fn: today,
      minArgs: 0,
      maxArgs: 1,
      deterministic: false,
      description: 'Current local date, formatted',
    },
  });
}
