import type { CallInfo } from '../call-info.js';
import type { FunctionRegistry } from '../function-registry.js';
import { callError, stringArg } from './arguments.js';
import { defineBuiltins } from './define-builtins.js';
import { localTime } from './local-time.js';
import type { LocalTime } from './strftime.js';
import { strftime } from './strftime.js';

const systemClock = (): number => Date.now();
let clock: () => number = systemClock;

/** Replaces the clock `now`/`today` read (epoch milliseconds); no argument restores the system clock. */
export function setClock(next?: () => number): void {
  clock = next ?? systemClock;
}

function format(fn: string, timeZone: string | undefined, fmt: unknown, dateOnly: boolean): string {
  const pattern = stringArg(fn, fmt, 1);
  let time: LocalTime;
  try {
    time = localTime(clock(), timeZone);
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
  return format('now', this?.timeZone, fmt, false);
}

function today(this: CallInfo | undefined, fmt: unknown = '%Y-%m-%d'): string {
  return format('today', this?.timeZone, fmt, true);
}

export function registerDatetimeFunctions(registry: FunctionRegistry): void {
  defineBuiltins(registry, 'datetime', {
    now: { fn: now, minArgs: 0, maxArgs: 1, description: 'Current local date-time, formatted' },
    today: { fn: today, minArgs: 0, maxArgs: 1, description: 'Current local date, formatted' },
  });
}
