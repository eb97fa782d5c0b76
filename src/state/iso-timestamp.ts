/**
 * Dates as `Date.prototype.toISOString` text, both ways, at a fraction of the built-ins' cost
 * for the years 0000-9999 (other years go through the built-ins).
 *
 * `toISOString` is slow enough to dominate encoding a date-heavy state, and `new Date(text)`
 * with a `toISOString` check is slower still on decode; `new Date(text)` alone would accept
 * texts `toISOString` never writes (`2024-02-31`, `T24:00`), which a decoder must not guess at.
 */

const DAY_MS = 86_400_000;
const YEAR_0_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const YEAR_10000_MS = 253_402_300_800_000; // 10000-01-01T00:00:00.000Z

/** Exactly `date.toISOString()`, or null for an invalid date. */
export function formatIsoTimestamp(date: Date): string | null {
  const time = date.getTime();
  if (Number.isNaN(time)) return null;
  if (time < YEAR_0_MS || time >= YEAR_10000_MS) return date.toISOString();
  const days = Math.floor(time / DAY_MS);
  const { year, month, day } = civilFromDays(days);
  const msOfDay = time - days * DAY_MS;
  const ms = msOfDay % 1000;
  const seconds = Math.floor(msOfDay / 1000) % 60;
  const minutes = Math.floor(msOfDay / 60_000) % 60;
  const hours = Math.floor(msOfDay / 3_600_000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(ms, 3)}Z`;
}

/** Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's `civil_from_days`). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const shifted = days + 719_468; // count from 0000-03-01, so leap days end each cycle
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153); // 0 = March
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1,
  };
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

// `YYYY-MM-DDTHH:mm:ss.sssZ`; six-digit years (`+275760-...`) take the slow path below.
const COMMON_FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The date `text` denotes when it is a canonical UTC ISO-8601 timestamp, else undefined. */
export function parseIsoTimestamp(text: string): Date | undefined {
  if (!COMMON_FORM.test(text)) return parseRare(text);
  const year = digitsAt(text, 0, 4);
  // Date.UTC reads years 0-99 as 1900-1999.
  if (year < 100) return parseRare(text);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hours = digitsAt(text, 11, 2);
  const minutes = digitsAt(text, 14, 2);
  const seconds = digitsAt(text, 17, 2);
  // Date.UTC would roll out-of-range fields over (Feb 31 -> Mar 2); canonical text has none.
  const inRange =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hours < 24 &&
    minutes < 60 &&
    seconds < 60;
  if (!inRange) return undefined;
  return new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds, digitsAt(text, 20, 3)));
}

/** The number spelled by `count` ASCII digits (already checked) starting at `from`. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function parseRare(text: string): Date | undefined {
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && date.toISOString() === text ? date : undefined;
}
