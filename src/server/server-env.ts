import type { Role } from './auth/roles.js';

/** Who is calling: resolved once per request by the authentication middleware. */
export interface Principal {
  /** The API key's id, or null when auth is off (`--no-auth`). */
  keyId: string | null;
  role: Role;
  /** The key's tenant, or `*` for a platform key. */
  keyTenant: string;
  via: 'bearer' | 'cookie' | 'none';
}

/** Hono's per-request variables of this server. */
export interface ServerEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The tenant this request acts for (the key's, or X-Plaita-Tenant for a platform key). */
    tenant: string;
  };
}
