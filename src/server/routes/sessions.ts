import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { PLATFORM_TENANT } from '../../store/control-store.js';
import { DEFAULT_TENANT } from '../../store/execution-store.js';
import type { ApiServices } from '../api-services.js';
import { principalOf } from '../auth/authenticate.js';
import { ROLES } from '../auth/roles.js';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../auth/sessions.js';
import { ApiProblem } from '../problem.js';
import { jsonBody, jsonResponse, problems } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

const signIn = createRoute({
  method: 'post',
  path: '/v1/sessions',
  tags: ['sessions'],
  summary: 'Exchange an API key for an HttpOnly session cookie (the console)',
  security: [],
  request: { body: jsonBody(z.strictObject({ apiKey: z.string().min(1).max(200) })) },
  responses: { 204: { description: 'signed in; the cookie is set' }, ...problems() },
});

const whoAmI = createRoute({
  method: 'get',
  path: '/v1/sessions/current',
  tags: ['sessions'],
  summary: 'The caller: key, role and tenant',
  responses: {
    200: jsonResponse(
      z
        .object({
          keyId: z.string().nullable(),
          role: z.enum(ROLES),
          tenant: z.string(),
          keyTenant: z.string(),
        })
        .openapi('Caller'),
      'the caller',
    ),
    ...problems(),
  },
});

const signOut = createRoute({
  method: 'delete',
  path: '/v1/sessions/current',
  tags: ['sessions'],
  summary: 'Sign out (clears the cookie)',
  responses: { 204: { description: 'signed out' }, ...problems() },
});

export function registerSessionRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  app.openapi(signIn, async (c) => {
    const { apiKey } = c.req.valid('json');
    const key = await services.keys.verify(apiKey, { fresh: true });
    if (!key) throw new ApiProblem('unauthorized', 'that API key is unknown or revoked');
    // The route is public: the key just verified is who signs in, in the audit log too.
    c.set('principal', principalOf(key, 'cookie'));
    c.set('tenant', key.tenant === PLATFORM_TENANT ? DEFAULT_TENANT : key.tenant);
    // Behind https: the request says so, a TLS-terminating proxy says so, or --public-url does
    // (a proxy that forwards no X-Forwarded-Proto).
    const secure =
      new URL(c.req.url).protocol === 'https:' ||
      c.req.header('x-forwarded-proto') === 'https' ||
      services.options.publicUrl?.startsWith('https:') === true;
    setCookie(c, SESSION_COOKIE, await services.sessions.issue(key), {
      httpOnly: true,
      sameSite: 'Strict',
      secure,
      path: '/',
      maxAge: Math.floor(SESSION_TTL_MS / 1000),
    });
    await services.audit.record(c, 'session.create', key.id);
    return c.body(null, 204);
  });
  app.openapi(whoAmI, (c) => {
    const principal = c.get('principal');
    return c.json(
      {
        keyId: principal.keyId,
        role: principal.role,
        tenant: c.get('tenant'),
        keyTenant: principal.keyTenant,
      },
      200,
    );
  });
  app.openapi(signOut, async (c) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined) await services.sessions.end(cookie);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    await services.audit.record(c, 'session.end', c.get('principal').keyId ?? '');
    return c.body(null, 204);
  });
}
