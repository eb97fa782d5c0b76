import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { ApiApp } from './api-app.js';
import { DEFAULT_MAX_BODY_BYTES } from './api-app.js';
import { guardRequestBodies } from './request-body-guard.js';

export interface HttpListenOptions {
  host: string;
  port: number;
  /**
   * How long an idle keep-alive connection stays open. Above the idle timeout of common load
   * balancers (60 s), so they close first and never send a request on a connection we are
   * closing (a 502). Default 65 000 ms.
   */
  keepAliveTimeoutMs?: number;
  /** How long a request's headers may take; above the keep-alive timeout. Default it + 1 s. */
  headersTimeoutMs?: number;
}

export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The API app on a Node HTTP server: bodies read (and refused over the limit) before the app
 * sees them, and keep-alive timeouts an operator can set. Resolves once listening; rejects
 * with the listen error (a port taken).
 */
export function listenApiApp(app: ApiApp, options: HttpListenOptions): Promise<Server> {
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
  const headersTimeout = options.headersTimeoutMs ?? keepAliveTimeout + 1_000;
  const listener = guardRequestBodies(getRequestListener(app.fetch), {
    maxBodyBytes: app.services.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    log: app.services.log,
  });
  const server = createServer(listener);
  server.keepAliveTimeout = keepAliveTimeout;
  server.headersTimeout = headersTimeout;
  // Node wants the whole request's timeout at least the headers'; its default is 300 s.
  server.requestTimeout = Math.max(server.requestTimeout, headersTimeout);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
