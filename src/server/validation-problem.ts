import type { z } from '@hono/zod-openapi';
import { ApiProblem } from './problem.js';

/** Where a validation target appears in problem paths (`body.input.amount`, `query.limit`). */
const TARGET_NAMES: Record<string, string> = {
  json: 'body',
  form: 'body',
  query: 'query',
  param: 'path',
  header: 'header',
  cookie: 'cookie',
};

/**
 * A request that fails its zod schema: 400 `invalid_request` naming every path, unknown fields
 * included (request schemas are strict), never a 500.
 */
export function validationProblem(target: string, error: z.ZodError): ApiProblem {
  const root = TARGET_NAMES[target] ?? target;
  const errors = error.issues.flatMap((issue) => fieldErrors(issue, [root]));
  const first = errors[0];
  return new ApiProblem(
    'invalid_request',
    first
      ? `${first.path}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`
      : 'invalid request',
    { errors },
  );
}

type Issue = z.ZodError['issues'][number];

/**
 * An issue as the paths it names. An unknown field is named by its own path (`body.bogus`), one
 * error each. A value that matched no branch of a union is explained by the branch it came
 * closest to (fewest issues, then the deepest), not by "Invalid input" at the union.
 */
function fieldErrors(issue: Issue, prefix: string[]): Array<{ path: string; message: string }> {
  const at = [...prefix, ...issue.path.map(String)];
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({ path: [...at, key].join('.'), message: 'unknown field' }));
  if (issue.code === 'invalid_union') {
    const branch = closestBranch(issue.errors);
    if (branch) return branch.flatMap((inner) => fieldErrors(inner, at));
  }
  return [{ path: at.join('.'), message: issue.message }];
}

function closestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  let best: readonly Issue[] | undefined;
  for (const branch of branches) {
    if (branch.length === 0) continue;
    if (
      best === undefined ||
      branch.length < best.length ||
      (branch.length === best.length && depth(branch) > depth(best))
    )
      best = branch;
  }
  return best;
}

function depth(issues: readonly Issue[]): number {
  return Math.max(...issues.map((issue) => issue.path.length));
}
