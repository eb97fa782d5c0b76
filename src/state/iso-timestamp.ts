/**
 * Reads back exactly what `Date.prototype.toISOString` writes, and nothing else.
 *
 * `new Date(text)` costs about ten times a field-by-field read and also accepts texts
 * `toISOString` never writes (`2024-02-31`, `T24:00`), which a decoder must not guess at.
 */

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
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hours < 24 && minutes < 60 && seconds < 60;
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
