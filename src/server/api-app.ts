import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { createServices, type ApiAppOptions, type ApiServices } from './api-services.js';
import { limitFailedCredentials } from './auth/failed-credentials.js';
import { authenticate } from './auth/authenticate.js';
import { registerConsole } from './console-static.js';
import { registerDocs } from './openapi-docs.js';
import { ApiProblem, problemResponse } from './problem.js';
import { DEFAULT_MAX_IN_FLIGHT, inFlightLimit, rateLimit } from './rate-limit.js';
import { requestId } from './request-id.js';
import { accessLog } from './access-log.js';
import { ROUTE_GROUPS } from './routes/index.js';
import type { ServerEnv } from './server-env.js';
import { toProblem } from './to-problem.js';
import { validationProblem } from './validation-problem.js';

export type ApiApp = OpenAPIHono<ServerEnv> & { services: ApiServices };

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The HTTP API of docs/http-api.md as a Hono app (a standard `fetch` handler): mount it in any server, or
 * run it with `plaita serve`. Background work (schedules, bulk operations, the in-process
 * worker) is not started here; see `startServerTasks`.
 */
export function createApiApp(options: ApiAppOptions): ApiApp {
  const services = createServices(options);
  const app = new OpenAPIHono<ServerEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationProblem(result.target, result.error);
    },
  }) as ApiApp;
  app.services = services;

  app.use('*', requestId());
  app.use('*', accessLog(services.log));
  app.onError((error, c) => renderError(error, c, services));
  app.notFound((c) =>
    problemResponse(c, new ApiProblem('not_found', `no route ${c.req.method} ${c.req.path}`)),
  );
  if (options.corsOrigin)
    app.use(
      '/v1/*',
      cors({
        origin: options.corsOrigin,
        credentials: true,
        exposeHeaders: ['X-Request-Id', 'Retry-After'],
      }),
    );
  const limitBody: MiddlewareHandler<ServerEnv> = bodyLimit({
    maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    onError: () => {
      throw new ApiProblem(
        'payload_too_large',
        `the request body is over ${options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes`,
      );
    },
  });
  // No route reads the body of a GET or HEAD; asking for it would build the whole fetch
  // Request (headers, abort signal) on every read, a fifth of a GET's cost.
  const limitBodyOfWrites: MiddlewareHandler<ServerEnv> = (c, next) =>
    c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next);
  app.use('/v1/*', limitBodyOfWrites);
  const auth = authenticate({
    keys: services.keys,
    sessions: services.sessions,
    mode: options.authMode ?? 'keys',
    publicUrl: options.publicUrl ?? null,
  });
  const guard: MiddlewareHandler<ServerEnv> = (c, next) =>
    isPublic(c) ? publicCaller(c, next) : auth(c, next);
  // `/metrics` with a key goes through the same door as the API: the same key check (a session
  // cookie works too), and the same limits on failed credentials and on requests.
  const guarded = options.metricsPublic === true ? ['/v1/*'] : ['/v1/*', '/metrics'];
  const failedCredentials =
    options.rateLimit !== null && (options.authMode ?? 'keys') === 'keys'
      ? limitFailedCredentials(
          services.keys,
          options.clientAddress ?? (() => null),
          options.failedCredentialLimit,
        )
      : null;
  const requests =
    options.rateLimit !== null
      ? rateLimit(options.rateLimit ?? { perSecond: 50, burst: 100 }, options.clientAddress)
      : null;
  const inFlight =
    options.maxInFlight === null
      ? null
      : inFlightLimit(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, options.clientAddress);
  for (const path of guarded) {
    if (failedCredentials) app.use(path, failedCredentials);
    app.use(path, guard);
    if (requests) app.use(path, requests);
    if (inFlight) app.use(path, inFlight);
  }

  for (const register of ROUTE_GROUPS) register(app, services);
  registerDocs(app);
  if (options.consoleDir) registerConsole(app, options.consoleDir);
  return app;
}

/** Hono's own refusals (malformed JSON, a wrong content type) in our problem form. */
function fromHttpException(error: HTTPException): ApiProblem {
  if (error.status === 413) return new ApiProblem('payload_too_large', error.message);
  if (error.status === 401) return new ApiProblem('unauthorized', error.message);
  // Still `invalid_request` (docs/http-api.md §3 fixes the codes), but saying what to send.
  if (error.status === 415)
    return new ApiProblem(
      'invalid_request',
      'the body must be JSON: send it with the header Content-Type: application/json',
      { errors: [{ path: 'header.content-type', message: 'expected application/json' }] },
    );
  if (error.status < 500)
    return new ApiProblem('invalid_request', error.message || 'the request cannot be read', {
      errors: [{ path: 'body', message: error.message || `HTTP ${error.status}` }],
    });
  return new ApiProblem('internal_error', 'an unexpected error happened; quote the request id', {
    cause: error,
  });
}

/**
 * Routes that work without a key: signing in, the signed approval links (an approver without
 * an account), and an execution stream opened with a single-use ticket (EventSource cannot send
 * headers). Each checks its own credential.
 */
function isPublic(c: Context<ServerEnv>): boolean {
  const path = c.req.path;
  if (path === '/v1/sessions' && c.req.method === 'POST') return true;
  if (path.startsWith('/v1/approval-links/')) return true;
  return /^\/v1\/executions\/[^/]+\/stream$/.test(path) && c.req.query('ticket') !== undefined;
}

async function publicCaller(c: Context<ServerEnv>, next: Next): Promise<void> {
  c.set('principal', { keyId: null, role: 'viewer', keyTenant: '', via: 'none' });
  c.set('tenant', '');
  await next();
}

function renderError(error: unknown, c: Context<ServerEnv>, services: ApiServices): Response {
  const problem = error instanceof HTTPException ? fromHttpException(error) : toProblem(error);
  if (problem.code === 'internal_error')
    services.log.error(
      { err: error, requestId: c.get('requestId'), path: c.req.path },
      'internal error',
    );
  else if (problem.code === 'service_unavailable')
    services.log.warn(
      { err: error, requestId: c.get('requestId'), path: c.req.path },
      'a store or queue is unavailable',
    );
  return problemResponse(c, problem);
}
