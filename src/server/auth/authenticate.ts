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
    const principal = await identify(
      c.req.header('authorization'),
      getCookie(c, SESSION_COOKIE),
      options,
    );
    if (principal.via === 'cookie' && UNSAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      if (origin !== new URL(c.req.url).origin)
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

async function identify(
  authorization: string | undefined,
  cookie: string | undefined,
  options: AuthOptions,
): Promise<Principal> {
  if (options.mode === 'none') return { keyId: null, role: 'admin', keyTenant: '*', via: 'none' };
  if (authorization !== undefined) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    const key = token ? await options.keys.verify(token) : null;
    if (!key)
      throw new ApiProblem('unauthorized', 'the API key is missing, malformed, unknown or revoked');
    return principalOf(key, 'bearer');
  }
  if (cookie !== undefined) {
    const key = await options.sessions.resolve(cookie);
    if (!key)
      throw new ApiProblem(
        'unauthorized',
        'the session has expired or its key was revoked; sign in again',
      );
    return principalOf(key, 'cookie');
  }
  throw new ApiProblem('unauthorized', 'send an API key: Authorization: Bearer plt_…');
}

function principalOf(key: ApiKeyView, via: 'bearer' | 'cookie'): Principal {
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
