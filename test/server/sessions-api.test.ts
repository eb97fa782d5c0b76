import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

/**
 * Console sign-in (docs/http-api.md §5): a key exchanged for an HttpOnly, SameSite=Strict
 * cookie that every /v1 route accepts; a write made with the cookie from a foreign Origin is
 * 403 and changes nothing; signing out ends the session.
 */
let api: ApiHarness;
let operatorKey: string;

beforeAll(async () => {
  api = await startApi();
  operatorKey = await api.key('operator', 'default');
});
afterAll(async () => {
  await api.close();
});

async function signIn(apiKey: string): Promise<Response> {
  return fetch(`${api.url}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: api.url },
    body: JSON.stringify({ apiKey }),
  });
}

const inline = {
  flow: {
    flow_id: 'cookie',
    nodes: [
      { type: 'start', id: 's', next: 'e' },
      { type: 'end', id: 'e', output: 'hi' },
    ],
  },
};

describe('cookie sessions', () => {
  it('sign in sets an HttpOnly SameSite=Strict cookie that reads and writes from our origin', async () => {
    const res = await signIn(operatorKey);
    expect(res.status).toBe(204);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).not.toContain(operatorKey);
    const cookie = setCookie.split(';')[0]!;

    const me = await fetch(`${api.url}/v1/sessions/current`, { headers: { cookie } });
    expect(await body(me)).toMatchObject({ role: 'operator', tenant: 'default' });
    expect((await fetch(`${api.url}/v1/executions`, { headers: { cookie } })).status).toBe(200);

    const own = await fetch(`${api.url}/v1/executions`, {
      method: 'POST',
      headers: { cookie, origin: api.url, 'content-type': 'application/json' },
      body: JSON.stringify(inline),
    });
    expect(own.status).toBe(201);
  });

  it('a cookie write from a foreign Origin, or with none, is 403 and starts nothing', async () => {
    const cookie = (await signIn(operatorKey)).headers.get('set-cookie')!.split(';')[0]!;
    const before = (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items
      .length;
    for (const origin of ['https://evil.example', null]) {
      const res = await fetch(`${api.url}/v1/executions`, {
        method: 'POST',
        headers: {
          cookie,
          'content-type': 'application/json',
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify(inline),
      });
      expect(res.status, String(origin)).toBe(403);
      expect(await body(res)).toMatchObject({ code: 'forbidden' });
    }
    const after = (await body<{ items: unknown[] }>(await api.fetch('/v1/executions'))).items
      .length;
    expect(after).toBe(before);
  });

  it('sign-in and sign-out are in the audit log under the key that signed in', async () => {
    const cookie = (await signIn(operatorKey)).headers.get('set-cookie')!.split(';')[0]!;
    const out = await fetch(`${api.url}/v1/sessions/current`, {
      method: 'DELETE',
      headers: { cookie, origin: api.url },
    });
    expect(out.status).toBe(204);
    const audit = await body<{ items: Array<{ action: string; keyId: string; role: string }> }>(
      await api.fetch('/v1/audit?limit=10'),
    );
    const keyId = /^plt_([0-9a-f]{16})_/.exec(operatorKey)![1];
    const sessions = audit.items.filter((e) => e.action.startsWith('session.'));
    expect(sessions.slice(0, 2).map((e) => e.action)).toEqual(['session.end', 'session.create']);
    for (const entry of sessions.slice(0, 2))
      expect(entry).toMatchObject({ role: 'operator', keyId: expect.stringContaining(keyId!) });
  });

  it('behind a TLS proxy: the https origin of our host, or --public-url, may write; others may not', async () => {
    const proxied = await startApi({ app: { publicUrl: 'https://plaita.example.com' } });
    try {
      const key = await proxied.key('operator', 'default');
      const signedIn = await fetch(`${proxied.url}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: proxied.url },
        body: JSON.stringify({ apiKey: key }),
      });
      // --public-url says https even when the proxy forwards no X-Forwarded-Proto.
      expect(signedIn.headers.get('set-cookie')).toMatch(/;\s*Secure/i);
      const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
      const write = (origin: string, forwarded: boolean) =>
        fetch(`${proxied.url}/v1/executions`, {
          method: 'POST',
          headers: {
            cookie,
            origin,
            'content-type': 'application/json',
            ...(forwarded ? { 'x-forwarded-proto': 'https' } : {}),
          },
          body: JSON.stringify(inline),
        });
      const httpsOwn = proxied.url.replace('http:', 'https:');
      expect((await write(httpsOwn, true)).status).toBe(201);
      expect((await write('https://plaita.example.com', false)).status).toBe(201);
      expect((await write(httpsOwn, false)).status).toBe(403);
      expect((await write('https://evil.example', true)).status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it('a bad key is 401 and sets no cookie; sign out ends the session', async () => {
    const bad = await signIn('plt_0000000000000000_nope');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();

    const cookie = (await signIn(operatorKey)).headers.get('set-cookie')!.split(';')[0]!;
    const out = await fetch(`${api.url}/v1/sessions/current`, {
      method: 'DELETE',
      headers: { cookie, origin: api.url },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie') ?? '').toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    // A copy of the cookie (another tab, a stolen one) no longer works either, however its
    // signature is spelled (base64url padding is accepted by the decoder).
    expect((await fetch(`${api.url}/v1/executions`, { headers: { cookie } })).status).toBe(401);
    const padded = `${cookie}=`;
    expect((await fetch(`${api.url}/v1/executions`, { headers: { cookie: padded } })).status).toBe(
      401,
    );
    // Another session of the same key is its own: still signed in.
    const other = (await signIn(operatorKey)).headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${api.url}/v1/executions`, { headers: { cookie: other } })).status).toBe(
      200,
    );
  });

  it('a cookie of the layout before the nonce (key id, expiry, signature) still reads', async () => {
    const keyId = /^plt_([0-9a-f]{16})_/.exec(operatorKey)![1]!;
    const payload = `${keyId}.${Date.now() + 60_000}`;
    const old = `plaita_session=${payload}.${await api.app.services.secret.sign(payload)}`;
    expect((await fetch(`${api.url}/v1/executions`, { headers: { cookie: old } })).status).toBe(
      200,
    );
  });
});
