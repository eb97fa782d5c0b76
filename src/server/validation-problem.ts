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
  // An unknown field is named by its own path (`body.bogus`), one error each.
  const errors = error.issues.flatMap((issue) => {
    const at = [root, ...issue.path.map(String)];
    return issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...at, key].join('.'), message: 'unknown field' }))
      : [{ path: at.join('.'), message: issue.message }];
  });
  const first = errors[0];
  return new ApiProblem(
    'invalid_request',
    first
      ? `${first.path}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`
      : 'invalid request',
    { errors },
  );
}
