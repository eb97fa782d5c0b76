import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../util/logger.js';
import type { ServerEnv } from './server-env.js';

/**
 * One line per request at `info` (PLAITA_LOG_LEVEL=info): method, the route's template (never
 * the path itself, which may hold an approval link's token), status, time, request id, and who
 * called (key id, tenant). Nothing is built when info is off, the default.
 */
export function accessLog(log: Logger): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (log.isLevelEnabled?.('info') === false) return next();
    const started = performance.now();
    try {
      await next();
    } finally {
      const principal = c.get('principal') as ServerEnv['Variables']['principal'] | undefined;
      log.info(
        {
          requestId: c.get('requestId'),
          method: c.req.method,
          // The last route matched: the handler's (`/v1/executions/:id`), or a middleware's on a 404.
          route: routePath(c, -1),
          status: c.res.status,
          ms: +(performance.now() - started).toFixed(1),
          keyId: principal?.keyId ?? null,
          tenant: c.get('tenant') ?? null,
        },
        'request',
      );
    }
  };
}
