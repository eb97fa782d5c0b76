import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './server-env.js';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id a request is answered with: a valid incoming `X-Request-Id`, else a new one. */
export function requestIdFor(incoming: string | undefined): string {
  return incoming !== undefined && VALID.test(incoming) ? incoming : randomUUID();
}

/** Every response carries X-Request-Id, echoing a valid incoming one (docs/http-api.md §3). */
export function requestId(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const id = requestIdFor(c.req.header('x-request-id'));
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
    // A handler that returns its own Response (the console's files) skips the header set above.
    if (!c.res.headers.has('x-request-id')) c.res.headers.set('X-Request-Id', id);
  };
}
