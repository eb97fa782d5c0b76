import { describe, expect, it } from 'vitest';
import { FlowNotLoadableError } from '../../src/errors/flow-definition-errors.js';
import { InvalidCursorError, StoreUnavailableError } from '../../src/errors/store-errors.js';
import { UnknownExecutionError } from '../../src/errors/execution-errors.js';
import { toProblem } from '../../src/server/to-problem.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
} from '../../src/errors/control-errors.js';

/** What a runtime error means to an HTTP client is read from its code, never its class. */
describe('toProblem', () => {
  it.each([
    ['unknown execution', new UnknownExecutionError('no e1'), 404, 'not_found'],
    ['foreign cursor', new InvalidCursorError('bad'), 400, 'invalid_request'],
    ['store down', new StoreUnavailableError('down'), 503, 'service_unavailable'],
    [
      'a flow this server cannot load (a plugin only its workers have)',
      new FlowNotLoadableError('unknown node type "crm.lookup"'),
      503,
      'service_unavailable',
    ],
    ['anything else', new TypeError('bug'), 500, 'internal_error'],
  ])('%s', (_name, error, status, code) => {
    const problem = toProblem(error);
    expect(problem.status).toBe(status);
    expect(problem.code).toBe(code);
  });

  it.each([
    [
      'invalid_request',
      new InvalidRequestError('bad', { fieldIssues: [{ path: 'body.x', message: 'bad' }] }),
      400,
    ],
    [
      'not_found',
      new NotFoundError('none', { fieldIssues: [{ path: 'body.x', message: 'none' }] }),
      404,
    ],
    [
      'forbidden',
      new ForbiddenError('not yours', { fieldIssues: [{ path: 'body.x', message: 'not yours' }] }),
      403,
    ],
    [
      'conflict',
      new ConflictError('taken', { fieldIssues: [{ path: 'body.x', message: 'taken' }] }),
      409,
    ],
  ])('the control plane refusal %s keeps its code, message and fields', (code, error, status) => {
    const problem = toProblem(error);
    expect(problem).toMatchObject({ code, status, message: error.message });
    expect(problem.errors).toEqual([{ path: 'body.x', message: error.message }]);
    expect(problem.retryable).toBe(false);
  });

  it('a conflict that settles by itself says when to retry', () => {
    const error = new ConflictError('in progress', { retryAfterSeconds: 2 });
    expect(error.retryable).toBe(true);
    expect(toProblem(error)).toMatchObject({
      code: 'conflict',
      retryAfterSeconds: 2,
      retryable: true,
    });
  });

  it("a 503 does not hand the backend's own words (hosts, logins) to the caller", () => {
    const problem = toProblem(
      new StoreUnavailableError('PostgreSQL is unavailable (connecting): db.internal:5432 refused'),
    );
    expect(problem.status).toBe(503);
    expect(problem.message).not.toContain('db.internal');
  });
});
