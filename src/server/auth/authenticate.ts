import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { ApiProblem } from '../problem.js';
import type { Principal, ServerEnv } from '../server-env.js';
import type { ApiKeys, ApiKeyView } from './api-keys.js';
import { roleAllows, type Role } from './roles.js';
import { SESSION_COOKIE, type Sessions } from './sessions.js';
import { DEFAULT_TENANT } from '../../store/execution-store.js';

export interface AuthOptions {
  keys: ApiKeys;
  sessions: Sessions;
  /** `none`: `--no-auth`, every caller is a platform admin (loopback only, enforced by serve). */
  mode: 'keys' | 'none';
  /** `--public-url`: where browsers reach the server (a proxy may change the Host it forwards). */
  publicUrl?: string | null;
}

const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Resolves the caller (docs/http-api.md §2, §5): a Bearer key, or the console's session cookie. A write
 * made with the cookie must come from the server's own origin (a foreign page cannot ride the
 * session). Sets `principal` and the `tenant` the request acts for.
 */
export function authenticate(options: AuthOptions): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (options.mode === 'none') refuseForeignCallers(c.req.header('host'), c.req);
    const principal = await identify(
      c.req.header('authorization'),
      getCookie(c, SESSION_COOKIE),
      options,
      // A write reads its key afresh: one revoked on another server must change nothing.
      UNSAFE_METHODS.has(c.req.method),
    );
    if (principal.via === 'cookie' && UNSAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      if (origin === undefined || !ownOrigins(c.req, options.publicUrl ?? null).has(origin))
        throw new ApiProblem(
          'forbidden',
          'a write with the session cookie must come from this server’s own origin',
        );
    }
    c.set('principal', principal);
    c.set('tenant', actingTenant(principal, c.req.header('x-plaita-tenant')));
    if (principal.keyId) options.keys.touch(principal.keyId);
    await next();
  };
}

/**
 * `--no-auth` makes every caller an admin, so only this machine's own callers may be one: a
 * request addressed to another host name (a page whose DNS name was rebound to 127.0.0.1) is
 * refused, and so is a browser's write from a foreign (or `null`) origin, which a page can send
 * without a body or a preflight. A client without an Origin (curl, a service) is not a page.
 */
function refuseForeignCallers(
  host: string | undefined,
  request: { method: string; url: string; header(name: string): string | undefined },
): void {
  if (!isLoopbackHost(host))
    throw new ApiProblem(
      'forbidden',
      '--no-auth answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1])',
    );
  const origin = request.header('origin');
  if (UNSAFE_METHODS.has(request.method) && origin !== undefined) {
    if (origin !== new URL(request.url).origin)
      throw new ApiProblem('forbidden', '--no-auth refuses writes from another origin');
  }
}

/**
 * The origins a browser may show for this server: the request's own; its https form when a
 * TLS-terminating proxy says so (`X-Forwarded-Proto`, as the session cookie's `Secure` reads it:
 * a foreign page cannot add that header to a cross-site write without a preflight we refuse);
 * and `--public-url`'s.
 */
function ownOrigins(
  request: { url: string; header(name: string): string | undefined },
  publicUrl: string | null,
): Set<string> {
  const own = new URL(request.url);
  const origins = new Set([own.origin]);
  if (request.header('x-forwarded-proto') === 'https' && own.protocol === 'http:')
    origins.add(`https://${own.host.replace(/:80$/, '')}`);
  if (publicUrl !== null) origins.add(new URL(publicUrl).origin);
  return origins;
}

function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return true; // HTTP/1.0 without Host: no browser sends that
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === 'localhost' || name === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(name);
}

async function identify(
  authorization: string | undefined,
  cookie: string | undefined,
  options: AuthOptions,
  fresh: boolean,
): Promise<Principal> {
  if (options.mode === 'none') return { keyId: null, role: 'admin', keyTenant: '*', via: 'none' };
  if (authorization !== undefined) {
    const token = bearerToken(authorization);
    const key = token ? await options.keys.verify(token, { fresh }) : null;
    if (!key)
      throw new ApiProblem('unauthorized', 'the API key is missing, malformed, unknown or revoked');
    return principalOf(key, 'bearer');
  }
  if (cookie !== undefined) {
    const key = await options.sessions.resolve(cookie, Date.now(), { fresh });
    if (!key)
      throw new ApiProblem(
        'unauthorized',
        'the session has expired or its key was revoked; sign in again',
      );
    return principalOf(key, 'cookie');
  }
  throw new ApiProblem('unauthorized', 'send an API key: Authorization: Bearer plt_…');
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
}

export function principalOf(key: ApiKeyView, via: 'bearer' | 'cookie'): Principal {
  return { keyId: key.id, role: key.role, keyTenant: key.tenant, via };
}

/** A tenant key acts for its tenant; a platform key for X-Plaita-Tenant, else the default. */
function actingTenant(principal: Principal, header: string | undefined): string {
  if (principal.keyTenant !== '*') return principal.keyTenant;
  if (header === undefined || header === '') return DEFAULT_TENANT;
  if (!TENANT_ID.test(header))
    throw new ApiProblem('invalid_request', 'X-Plaita-Tenant is not a valid tenant id', {
      errors: [
        { path: 'header.x-plaita-tenant', message: 'letters, digits and . _ : - (at most 128)' },
      ],
    });
  return header;
}

/** 403 unless the caller's role includes `role` (docs/http-api.md §2). */
export function requireRole(role: Role): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (!roleAllows(c.get('principal').role, role))
      throw new ApiProblem(
        'forbidden',
        `this needs the ${role} role; the key is ${c.get('principal').role}`,
      );
    await next();
  };
}
