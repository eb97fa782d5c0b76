import { describe, expect, it } from 'vitest';
import {
  FlowNotLoadableError,
  InvalidCursorError,
  StoreUnavailableError,
  UnknownExecutionError,
} from '../../src/errors.js';
import { toProblem } from '../../src/server/to-problem.js';

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

  it("a 503 does not hand the backend's own words (hosts, logins) to the caller", () => {
    const problem = toProblem(
      new StoreUnavailableError('PostgreSQL is unavailable (connecting): db.internal:5432 refused'),
    );
    expect(problem.status).toBe(503);
    expect(problem.message).not.toContain('db.internal');
  });
});
