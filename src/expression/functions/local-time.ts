import type { LocalTime } from './strftime.js';

const DAY_MS = 86_400_000;
/** One formatter per zone: building an `Intl.DateTimeFormat` costs far more than using one. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      ...(timeZone === undefined ? {} : { timeZone }),
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(key, formatter);
  }
  return formatter;
}

/**
 * The wall-clock reading of `epochMs` in `timeZone` (an IANA name; the process zone when absent).
 * Throws a `RangeError` for an unknown zone.
 */
export function localTime(epochMs: number, timeZone: string | undefined): LocalTime {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(epochMs)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const year = fields.year ?? 1970;
  const month = fields.month ?? 1;
  const day = fields.day ?? 1;
  const midnight = Date.UTC(year, month - 1, day);
  return {
    year,
    month,
    day,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    millisecond: ((epochMs % 1000) + 1000) % 1000,
    weekday: new Date(midnight).getUTCDay(),
    dayOfYear: Math.round((midnight - Date.UTC(year, 0, 1)) / DAY_MS) + 1,
  };
}
