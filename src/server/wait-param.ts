import { ApiProblem } from './problem.js';

const MAX_WAIT_MS = 120_000;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `?wait=30s` (docs/http-api.md §4): `ms`, `s` (the default unit), `m` or `h`, at most two minutes. */
export function parseWait(raw: string | undefined): number | null {
  if (raw === undefined || raw === '') return null;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw);
  if (!match)
    throw new ApiProblem('invalid_request', `wait=${raw} is not a duration`, {
      errors: [{ path: 'query.wait', message: 'e.g. 30s, 500ms, 2m (at most 120s)' }],
    });
  const unit = match[2] ?? 's';
  const ms = Number(match[1]) * UNIT_MS[unit as keyof typeof UNIT_MS];
  if (ms > MAX_WAIT_MS)
    throw new ApiProblem('invalid_request', `wait=${raw} is longer than two minutes`, {
      errors: [{ path: 'query.wait', message: 'at most 120s' }],
    });
  return ms;
}
