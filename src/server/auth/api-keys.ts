import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  type ControlPage,
  type ControlStore,
  PLATFORM_TENANT,
  updateRecord,
} from '../../store/control-store.js';
import type { Role } from './roles.js';

/** What is stored per key: never the secret, only its SHA-256. */
interface StoredKey {
  id: string;
  name: string;
  role: Role;
  tenant: string;
  hash: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A key as the API shows it (docs/http-api.md §2). */
export type ApiKeyView = Omit<StoredKey, 'hash'>;

const TOKEN = /^plt_([0-9a-f]{16})_([A-Za-z0-9_-]{20,})$/;
/**
 * A verified key is trusted this long before it is read again, for reads only: a key revoked on
 * another server still reads for up to this long, but every write (creating keys included) reads
 * the key afresh (`fresh`), so a revoked key can change nothing.
 */
const CACHE_MS = 5_000;
/** `lastUsedAt` is written at most this often per key: a read must not cost a write. */
const TOUCH_EVERY_MS = 60_000;

/**
 * API keys (docs/http-api.md §2): `plt_<keyId>_<secret>`, a random 256-bit secret of which only a hash
 * is kept, compared in constant time. Keys are platform-wide records; each names its tenant
 * (`*` = platform).
 */
export class ApiKeys {
  readonly #verified = new Map<string, { key: ApiKeyView; hash: Buffer; at: number }>();
  /** Keys revoked through this object: never trusted from the cache again (a read in flight may refill it). */
  readonly #revoked = new Set<string>();
  readonly #touched = new Map<string, number>();

  constructor(private readonly control: ControlStore) {}

  async create(spec: { name: string; role: Role; tenant: string }): Promise<{
    key: ApiKeyView;
    token: string;
  }> {
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const stored: StoredKey = {
      id,
      name: spec.name,
      role: spec.role,
      tenant: spec.tenant,
      hash: sha256(secret),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.control.create(this.#key(id), stored);
    return { key: view(stored), token: `plt_${id}_${secret}` };
  }

  /**
   * The key a bearer token names, when the token is genuine and the key not revoked. `fresh`
   * reads the stored key instead of one verified in the last few seconds (a write's check).
   */
  async verify(token: string, options: { fresh?: boolean } = {}): Promise<ApiKeyView | null> {
    const presented = parseToken(token);
    if (!presented || this.#revoked.has(presented.id)) return null;
    const cached = options.fresh === true ? undefined : this.#cached(presented.id);
    if (cached) return timingSafeEqual(cached.hash, presented.hash) ? cached.key : null;
    const record = await this.control.get<StoredKey>(this.#key(presented.id));
    if (!record || record.doc.revokedAt !== null) {
      this.#verified.delete(presented.id);
      return null;
    }
    const hash = Buffer.from(record.doc.hash, 'hex');
    if (hash.length !== presented.hash.length || !timingSafeEqual(hash, presented.hash))
      return null;
    const key = view(record.doc);
    this.#verified.set(presented.id, { key, hash, at: Date.now() });
    return key;
  }

  /** True when `token` is a key verified here in the last few seconds (no store read). */
  isTrusted(token: string): boolean {
    const presented = parseToken(token);
    const cached = presented && this.#cached(presented.id);
    return cached ? timingSafeEqual(cached.hash, presented.hash) : false;
  }

  /** A live (not revoked) key by id: sessions name their key and are checked against it. */
  async live(id: string, options: { fresh?: boolean } = {}): Promise<ApiKeyView | null> {
    const cached = options.fresh === true ? undefined : this.#cached(id);
    if (cached) return cached.key;
    if (this.#revoked.has(id)) return null;
    const record = await this.control.get<StoredKey>(this.#key(id));
    return record && record.doc.revokedAt === null ? view(record.doc) : null;
  }

  /** The key verified here in the last few seconds, unless revoked through this object. */
  #cached(id: string): { key: ApiKeyView; hash: Buffer } | undefined {
    const cached = this.#verified.get(id);
    if (!cached || this.#revoked.has(id) || Date.now() - cached.at >= CACHE_MS) return undefined;
    return cached;
  }

  /** Records the use at most once a minute per key; a failure to record never fails the request. */
  touch(id: string): void {
    const now = Date.now();
    if (now - (this.#touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.#touched.set(id, now);
    void this.#update(id, (doc) => ({ ...doc, lastUsedAt: new Date(now).toISOString() })).catch(
      () => undefined,
    );
  }

  /** Every key, or those of one tenant (a platform admin sees all). Newest first. */
  async list(tenant: string | null): Promise<ApiKeyView[]> {
    const keys: ApiKeyView[] = [];
    let after: string | null = null;
    for (;;) {
      const page: ControlPage<StoredKey> = await this.control.list<StoredKey>({
        collection: 'api_keys',
        tenant: PLATFORM_TENANT,
        limit: 1000,
        after,
      });
      for (const item of page.items)
        if (tenant === null || item.doc.tenant === tenant) keys.push(view(item.doc));
      if (page.next === null) break;
      after = page.next;
    }
    return keys.sort((a, b) =>
      a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0,
    );
  }

  async get(id: string): Promise<ApiKeyView | null> {
    const record = await this.control.get<StoredKey>(this.#key(id));
    return record ? view(record.doc) : null;
  }

  /** Revokes a key (idempotent); false when there is no such key. */
  async revoke(id: string): Promise<boolean> {
    this.#revoked.add(id);
    this.#verified.delete(id);
    return this.#update(id, (doc) =>
      doc.revokedAt === null ? { ...doc, revokedAt: new Date().toISOString() } : doc,
    );
  }

  /**
   * On a store that never had a key, creates the first admin key and returns its token — once:
   * a bootstrap marker is created atomically, so of several servers starting together exactly
   * one creates it, and a store whose keys were all revoked later gets none.
   */
  async bootstrap(): Promise<string | null> {
    const first = await this.control.list({
      collection: 'api_keys',
      tenant: PLATFORM_TENANT,
      limit: 1,
    });
    if (first.items.length > 0) return null;
    const won = await this.control.create(
      { collection: 'settings', tenant: PLATFORM_TENANT, id: 'bootstrap-admin-key' },
      { at: new Date().toISOString() },
    );
    if (!won) return null;
    const { token } = await this.create({
      name: 'first admin',
      role: 'admin',
      tenant: PLATFORM_TENANT,
    });
    return token;
  }

  #update(id: string, change: (doc: StoredKey) => StoredKey): Promise<boolean> {
    return updateRecord(this.control, this.#key(id), change);
  }

  #key(id: string) {
    return { collection: 'api_keys' as const, tenant: PLATFORM_TENANT, id };
  }
}

/** The key id a token names and the hash of its secret, or null when it is no token of ours. */
function parseToken(token: string): { id: string; hash: Buffer } | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const [, id, secret] = match as unknown as [string, string, string];
  return { id, hash: Buffer.from(sha256(secret), 'hex') };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function view(stored: StoredKey): ApiKeyView {
  const { hash: _hash, ...rest } = stored;
  return rest;
}
