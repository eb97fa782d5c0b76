/** A wall-clock reading in some zone, with the derived fields `strftime` needs. */
export interface LocalTime {
  readonly year: number;
  /** 1–12 */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
  /** 0 = Sunday */
  readonly weekday: number;
  /** 1–366 */
  readonly dayOfYear: number;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** The directives of docs/flow-format.md §5.8 (English names; `%z`/`%Z` empty: the time is zone-less). */
const DIRECTIVES: ReadonlyMap<string, (t: LocalTime) => string> = new Map([
  ['Y', (t: LocalTime) => pad(t.year, 4)],
  ['y', (t: LocalTime) => pad(t.year % 100)],
  ['m', (t: LocalTime) => pad(t.month)],
  ['d', (t: LocalTime) => pad(t.day)],
  ['H', (t: LocalTime) => pad(t.hour)],
  ['I', (t: LocalTime) => pad(t.hour % 12 || 12)],
  ['M', (t: LocalTime) => pad(t.minute)],
  ['S', (t: LocalTime) => pad(t.second)],
  ['f', (t: LocalTime) => pad(t.millisecond * 1000, 6)],
  ['p', (t: LocalTime) => (t.hour < 12 ? 'AM' : 'PM')],
  ['a', (t: LocalTime) => (DAYS[t.weekday] ?? '').slice(0, 3)],
  ['A', (t: LocalTime) => DAYS[t.weekday] ?? ''],
  ['b', (t: LocalTime) => (MONTHS[t.month - 1] ?? '').slice(0, 3)],
  ['B', (t: LocalTime) => MONTHS[t.month - 1] ?? ''],
  ['j', (t: LocalTime) => pad(t.dayOfYear, 3)],
  ['w', (t: LocalTime) => String(t.weekday)],
  ['z', () => ''],
  ['Z', () => ''],
  ['%', () => '%'],
]);

/** Formats `time`; throws a `RangeError` naming the first unsupported directive. */
export function strftime(time: LocalTime, format: string): string {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const char = format.charAt(i);
    if (char !== '%') {
      out += char;
      continue;
    }
    const directive = format.charAt(++i);
    const render = DIRECTIVES.get(directive);
    if (render === undefined) {
      throw new RangeError(
        directive === ''
          ? 'the format ends with a lone "%"'
          : `unsupported date directive "%${directive}"`,
      );
    }
    out += render(time);
  }
  return out;
}
