import { randomBytes } from 'node:crypto';
import { PLATFORM_TENANT, type ControlKey, type ControlStore } from '../../store/control-store.js';
import type { ApiKeys, ApiKeyView } from './api-keys.js';
import type { ServerSecret } from './server-secret.js';

export const SESSION_COOKIE = 'plaita_session';
export const SESSION_TTL_MS = 12 * 3600_000;

/**
 * Console sessions (docs/http-api.md §5): the cookie names the key and an expiry, signed by the server
 * secret; it never holds the key's secret. Each request checks the key is still live, so a
 * revoked key ends its sessions too, and that the session was not signed out: a copy of the
 * cookie (another tab, a stolen one) stops working when its owner signs out.
 */
export class Sessions {
  constructor(
    private readonly keys: ApiKeys,
    private readonly secret: ServerSecret,
    private readonly control: ControlStore,
  ) {}

  /** `key id . expiry . nonce . signature`: the nonce keeps two sign-ins apart (one may sign out). */
  async issue(key: ApiKeyView, now: number = Date.now()): Promise<string> {
    const payload = `${key.id}.${now + SESSION_TTL_MS}.${randomBytes(9).toString('base64url')}`;
    return `${payload}.${await this.secret.sign(payload)}`;
  }

  async resolve(
    cookie: string,
    now: number = Date.now(),
    options: { fresh?: boolean } = {},
  ): Promise<ApiKeyView | null> {
    const session = parse(cookie);
    if (session === null || Number(session.expires) <= now) return null;
    if (!(await this.secret.verify(session.payload, session.signature))) return null;
    if (await this.control.get(endedKey(session.payload))) return null;
    return this.keys.live(session.keyId, options);
  }

  /**
   * Signs a session out for every holder of its cookie: remembered until it would have expired
   * anyway. A cookie that is not a live session of ours is left alone.
   */
  async end(cookie: string, now: number = Date.now()): Promise<void> {
    const session = parse(cookie);
    if (session === null || (await this.resolve(cookie, now)) === null) return;
    await this.control.put(
      endedKey(session.payload),
      { at: new Date(now).toISOString() },
      { ttlMs: Math.max(1, Number(session.expires) - now) },
    );
  }
}

/** A cookie's parts; a cookie of the layout before the nonce (three parts) still reads. */
function parse(
  cookie: string,
): { keyId: string; expires: string; payload: string; signature: string } | null {
  const parts = cookie.split('.');
  if (parts.length !== 3 && parts.length !== 4) return null;
  const signature = parts.pop()!;
  const [keyId, expires, nonce] = parts as [string, string, string | undefined];
  if (!/^[0-9a-f]{16}$/.test(keyId) || !/^\d+$/.test(expires)) return null;
  if (nonce !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(nonce)) return null;
  return { keyId, expires, payload: parts.join('.'), signature };
}

/**
 * A session is named by what it signs (key id, expiry, nonce), never by its signature's text:
 * base64url decoding is lenient (padding, unused low bits), so one signature has many spellings.
 */
function endedKey(payload: string): ControlKey {
  return { collection: 'ended_sessions', tenant: PLATFORM_TENANT, id: payload };
}
