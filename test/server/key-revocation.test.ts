import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiHarness, body, memoryBackends, startApi } from './support/api-harness.js';

/**
 * Two servers on one store: a key revoked on one changes nothing on the other at once. Reads
 * may trust a key verified in the last few seconds; every write reads it afresh.
 */
describe('a revoked key', () => {
  let a: ApiHarness;
  let b: ApiHarness;
  beforeEach(async () => {
    const backends = memoryBackends();
    a = await startApi({ backends });
    b = await startApi({ backends, worker: false });
  });
  afterEach(async () => {
    await b.close();
    await a.close();
  });

  it('can write nothing on another server, by key or by its session, from the moment it is revoked', async () => {
    const created = await body<{ key: { id: string }; token: string }>(
      await a.fetch('/v1/api-keys', {
        method: 'POST',
        json: { name: 'doomed', role: 'admin', tenant: 'default' },
      }),
    );
    const token = created.token;
    // Used on B first: B has verified it, and may hold it for a few seconds.
    expect((await b.fetch('/v1/api-keys', { token })).status).toBe(200);
    const signIn = await fetch(`${b.url}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: b.url },
      body: JSON.stringify({ apiKey: token }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await a.fetch(`/v1/api-keys/${created.key.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );

    const byKey = await b.fetch('/v1/api-keys', {
      method: 'POST',
      token,
      json: { name: 'successor', role: 'admin', tenant: 'default' },
    });
    expect(byKey.status).toBe(401);
    const bySession = await fetch(`${b.url}/v1/api-keys`, {
      method: 'POST',
      headers: { cookie, origin: b.url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'successor', role: 'admin', tenant: 'default' }),
    });
    expect(bySession.status).toBe(401);
    // On the server that revoked it, reads end at once too.
    expect((await a.fetch('/v1/api-keys', { token })).status).toBe(401);
    const keys = await body<{ items: Array<{ name: string }> }>(await a.fetch('/v1/api-keys'));
    expect(keys.items.map((k) => k.name)).not.toContain('successor');
  });

  it('a key made for a tenant by a platform admin is in that tenant’s audit log, not the acting one’s', async () => {
    const created = await body<{ key: { id: string } }>(
      await a.fetch('/v1/api-keys', {
        method: 'POST',
        json: { name: 't1 viewer', role: 'viewer', tenant: 't1' },
      }),
    );
    const t1Admin = await a.key('admin', 't1');
    const targets = async (token?: string) =>
      (
        await body<{ items: Array<{ action: string; target: string; tenant: string }> }>(
          await a.fetch('/v1/audit?limit=100', token ? { token } : {}),
        )
      ).items
        .filter((entry) => entry.action === 'api_key.create')
        .map((entry) => entry.target);
    expect(await targets(t1Admin)).toContain(created.key.id);
    expect(await targets()).not.toContain(created.key.id); // the platform admin acts for `default`
  });
});
