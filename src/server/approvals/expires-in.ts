import { ApiProblem } from '../problem.js';

export const DEFAULT_LINK_TTL_MS = 7 * 24 * 3600_000;
export const MAX_LINK_TTL_MS = 90 * 24 * 3600_000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3600_000, d: 24 * 3600_000 } as const;

/**
 * A link's lifetime: seconds as a number or digits (`3600`), or a number with a unit (`90s`,
 * `30m`, `24h`, `7d`). Default 7 days, at most 90 days.
 */
export function parseExpiresIn(value: string | number | undefined): number {
  if (value === undefined) return DEFAULT_LINK_TTL_MS;
  const match = /^(\d{1,9})(s|m|h|d)?$/.exec(String(value).trim());
  const ms = match ? Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS] : NaN;
  if (!(ms >= 1000))
    throw invalid(`expiresIn=${String(value)} is not a duration (e.g. 3600, 90s, 30m, 24h, 7d)`);
  if (ms > MAX_LINK_TTL_MS) throw invalid(`expiresIn=${String(value)} is longer than 90 days`);
  return ms;
}

function invalid(message: string): ApiProblem {
  return new ApiProblem('invalid_request', message, {
    errors: [{ path: 'body.expiresIn', message }],
  });
}
