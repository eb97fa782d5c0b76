import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PlaitaError } from '../errors/plaita-error.js';

/** The stable error codes of docs/http-api.md §3, with their HTTP status. */
export const PROBLEM_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  invalid_request: 400,
  invalid_flow: 422,
  conflict: 409,
  execution_terminal: 409,
  payload_too_large: 413,
  rate_limited: 429,
  service_unavailable: 503,
  internal_error: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ProblemCode = keyof typeof PROBLEM_STATUS;

export interface ProblemFieldError {
  /** Where in the request: `body.input.amount`, `query.limit`, `nodes[2].next`. */
  path: string;
  message: string;
  /** Ours, for a flow's issues (`422 invalid_flow`): the fields a validation answer has. */
  severity?: 'error' | 'warning';
  code?: string;
  nodeId?: string | null;
  suggestion?: string;
}

const TITLES: Record<ProblemCode, string> = {
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  invalid_request: 'Invalid request',
  invalid_flow: 'Invalid flow',
  conflict: 'Conflict',
  execution_terminal: 'Execution is terminal',
  payload_too_large: 'Payload too large',
  rate_limited: 'Rate limited',
  service_unavailable: 'Service unavailable',
  internal_error: 'Internal error',
};

/**
 * A request the server refuses, rendered as `application/problem+json` (RFC 9457) with the
 * stable `code` of docs/http-api.md §3. Thrown anywhere below a route; the app's error handler renders it.
 */
export class ApiProblem extends PlaitaError {
  override readonly name = 'ApiProblem';
  readonly code: ProblemCode;
  readonly retryable: boolean;
  readonly errors: readonly ProblemFieldError[] | undefined;
  /** Seconds, for `rate_limited` (the Retry-After header). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ProblemCode,
    detail: string,
    options: {
      errors?: readonly ProblemFieldError[];
      retryAfterSeconds?: number;
      cause?: unknown;
    } = {},
  ) {
    super(detail, options.cause === undefined ? {} : { cause: options.cause });
    this.code = code;
    // "Retry after N seconds" is retryable whatever the code: a start with the same
    // idempotency key still in progress (409) will settle (or be taken over) soon.
    this.retryable =
      code === 'rate_limited' ||
      code === 'service_unavailable' ||
      options.retryAfterSeconds !== undefined;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): ContentfulStatusCode {
    return PROBLEM_STATUS[this.code];
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  requestId: string;
  errors?: ProblemFieldError[];
}

export function problemBody(problem: ApiProblem, requestId: string): ProblemBody {
  const body: ProblemBody = {
    type: `https://plaita.dev/problems/${problem.code}`,
    title: TITLES[problem.code],
    status: problem.status,
    code: problem.code,
    detail: problem.message,
    requestId,
  };
  if (problem.errors && problem.errors.length > 0) body.errors = [...problem.errors];
  return body;
}

/** Renders a problem as the response (also used outside the error handler, e.g. by middleware). */
export function problemResponse(c: Context, problem: ApiProblem): Response {
  const requestId = (c.get('requestId') as string | undefined) ?? '';
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (requestId) headers['x-request-id'] = requestId;
  if (problem.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.max(1, Math.ceil(problem.retryAfterSeconds)));
  return new Response(JSON.stringify(problemBody(problem, requestId)), {
    status: problem.status,
    headers,
  });
}
