import type { ApiKeys, ApiKeyView } from './api-keys.js';
import type { ServerSecret } from './server-secret.js';

export const SESSION_COOKIE = 'plaita_session';
export const SESSION_TTL_MS = 12 * 3600_000;

/**
 * Console sessions (docs/http-api.md §5): the cookie names the key and an expiry, signed by the server
 * secret; it never holds the key's secret. Each request checks the key is still live, so a
 * revoked key ends its sessions too.
 */
export class Sessions {
  constructor(
    private readonly keys: ApiKeys,
    private readonly secret: ServerSecret,
  ) {}

  async issue(key: ApiKeyView, now: number = Date.now()): Promise<string> {
    const payload = `${key.id}.${now + SESSION_TTL_MS}`;
    return `${payload}.${await this.secret.sign(payload)}`;
  }

  async resolve(cookie: string, now: number = Date.now()): Promise<ApiKeyView | null> {
    const parts = cookie.split('.');
    if (parts.length !== 3) return null;
    const [id, expires, signature] = parts as [string, string, string];
    if (!/^[0-9a-f]{16}$/.test(id) || !/^\d+$/.test(expires) || Number(expires) <= now) return null;
    if (!(await this.secret.verify(`${id}.${expires}`, signature))) return null;
    return this.keys.live(id);
  }
}
