import {
  ConflictError,
  ForbiddenError,
  InvalidRequestError,
  isUnavailable,
  NotFoundError,
} from '../errors/control-errors.js';

import { errorCode } from '../errors/plaita-error.js';
import { badCursor } from './cursor.js';
import { ApiProblem, type ProblemFieldError } from './problem.js';

/**
 * What a runtime error means to an HTTP client, by its `code` (never its class or message): a
 * missing execution is 404, a finished one 409, an unreachable store 503. Anything unknown is a
 * bug: 500 `internal_error`, logged with the request id, no stack in the response.
 */
export function toProblem(error: unknown): ApiProblem {
  if (error instanceof ApiProblem) return error;
  // The control plane's refusals (errors/control-errors.ts) are problems of the same code.
  if (
    error instanceof InvalidRequestError ||
    error instanceof NotFoundError ||
    error instanceof ForbiddenError ||
    error instanceof ConflictError
  )
    return new ApiProblem(error.code, error.message, {
      cause: error,
      ...(error.fieldIssues ? { errors: error.fieldIssues } : {}),
      ...(error instanceof ConflictError && error.retryAfterSeconds !== undefined
        ? { retryAfterSeconds: error.retryAfterSeconds }
        : {}),
    });
  const message = error instanceof Error ? error.message : String(error);
  switch (errorCode(error)) {
    case 'unknown_execution':
      return new ApiProblem('not_found', message, { cause: error });
    case 'execution_terminal':
      return new ApiProblem('execution_terminal', message, { cause: error });
    case 'invalid_transition':
    case 'flow_version_conflict':
      return new ApiProblem('conflict', message, { cause: error });
    case 'flow_definition_invalid':
      return new ApiProblem('invalid_flow', message, {
        cause: error,
        errors: definitionIssues(error),
      });
    case 'invalid_cursor':
      return badCursor();
    case 'flow_not_loadable':
      // This server lacks what the flow uses (a plugin its workers load): its configuration.
      return new ApiProblem('service_unavailable', message, { cause: error, retryAfterSeconds: 5 });
    case 'input_too_deep':
    case 'invalid_event':
      return new ApiProblem('invalid_request', message, {
        cause: error,
        errors: pathOf(error, message),
      });
    case 'rerun_refused':
      // Its path is the request's field (`fromNode`, `results.<id>`), in the body.
      return new ApiProblem('invalid_request', message, {
        cause: error,
        errors: pathOf(error, message).map((issue) => ({ ...issue, path: `body.${issue.path}` })),
      });
    case 'payload_too_large':
    case 'state_too_large':
      return new ApiProblem('payload_too_large', message, { cause: error });
    case 'state_not_serializable':
      return new ApiProblem('invalid_request', message, {
        cause: error,
        errors: pathOf(error, message),
      });
    default:
      // The backend's own words (a host and port, a refused login) are for the server's log
      // (api-app.ts logs the cause with the request id), not for every caller.
      if (isUnavailable(error))
        return new ApiProblem(
          'service_unavailable',
          'a store or queue is unreachable; retry shortly, or quote the request id',
          {
            cause: error,
            retryAfterSeconds: 1,
          },
        );
      return new ApiProblem(
        'internal_error',
        'an unexpected error happened; quote the request id',
        {
          cause: error,
        },
      );
  }
}

function definitionIssues(error: unknown): ProblemFieldError[] {
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return [];
  return issues.map((issue: { path?: unknown; message?: unknown }) => ({
    path: typeof issue.path === 'string' ? issue.path : '',
    message: typeof issue.message === 'string' ? issue.message : String(issue.message),
  }));
}

function pathOf(error: unknown, message: string): ProblemFieldError[] {
  const path = (error as { path?: unknown }).path;
  return typeof path === 'string' ? [{ path, message }] : [];
}
