/**
 * Durations (docs/flow-format.md §7.6): null/""/0 → no limit; a number or a digit string → milliseconds;
 * otherwise ISO 8601 `P[nW][nD][T[nH][nM][nS]]`, the last component may carry a fraction.
 */
import { DurationFormatError } from '../errors/flow-definition-errors.js';

const ACCEPTED =
  'expected milliseconds (a number or a digit string) or an ISO 8601 duration such as PT30S, PT1M30S, PT0.5S, P1D, P2W';

const ISO_DURATION =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;
const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000] as const;

/** Milliseconds, or `null` for "no limit". Throws DurationFormatError naming the accepted forms. */
export function parseDuration(value: unknown): number | null {
  if (value === null || value === undefined || value === '' || value === 0) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0)
      throw new DurationFormatError(`invalid duration ${value}: ${ACCEPTED}`);
    const ms = Math.trunc(value);
    return ms === 0 ? null : ms;
  }
  if (typeof value !== 'string')
    throw new DurationFormatError(`invalid duration ${JSON.stringify(value)}: ${ACCEPTED}`);
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) === 0 ? null : Number(text);
  return parseIsoDuration(text);
}

function parseIsoDuration(text: string): number | null {
  const match = ISO_DURATION.exec(text);
  if (!match || text.toUpperCase() === 'P' || text.toUpperCase().endsWith('T')) {
    throw new DurationFormatError(`invalid duration "${text}": ${ACCEPTED}`);
  }
  const parts = match.slice(1);
  const present = parts.map((p, i) => (p === undefined ? -1 : i)).filter((i) => i >= 0);
  // Only the last component may carry a fraction.
  for (const i of present.slice(0, -1)) {
    if (parts[i]!.includes('.'))
      throw new DurationFormatError(
        `invalid duration "${text}": only the last component may have a fraction`,
      );
  }
  let ms = 0;
  parts.forEach((p, i) => {
    if (p !== undefined) ms += Number(p) * UNIT_MS[i as 0 | 1 | 2 | 3 | 4];
  });
  ms = Math.trunc(ms);
  return ms === 0 ? null : ms;
}
