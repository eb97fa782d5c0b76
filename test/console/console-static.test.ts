import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConsole } from '../../src/server/console-static.js';
import { requestId } from '../../src/server/request-id.js';
import type { ServerEnv } from '../../src/server/server-env.js';

/** The console's files as `plaita serve` serves them (docs/http-api.md §5), on a bare Hono app. */
describe('console static files', () => {
  let dir: string;
  let app: Hono<ServerEnv>;
  let cachedFiles: () => number;
  const page = `<!doctype html><title>plaita console</title>${' '.repeat(2000)}`;
  const script = `console.log(${JSON.stringify('x'.repeat(3000))});`;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaita-console-static-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), page);
    writeFileSync(join(dir, 'assets/index-abc123.js'), script);
    writeFileSync(join(dir, 'secret.env'), 'not served: unknown type');
    app = new Hono<ServerEnv>();
    app.use(requestId()); // as createApiApp mounts it, before the console
    cachedFiles = registerConsole(app, dir).cachedFiles;
    app.get('/v1/ping', (c) => c.json({ ok: true }));
    app.notFound((c) => c.text('api 404', 404));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const get = (path: string, headers: Record<string, string> = {}) =>
    app.request(path, { headers });

  it('answers the page at / and at every deep link, with its CSP', async () => {
    for (const path of ['/', '/executions/abc', '/flows/orders?version=2', '/approvals']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      // docs/http-api.md §3: every response, the console's files included.
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await res.text()).toBe(page);
    }
  });

  it('keeps no record of a miss: made-up paths cannot fill its memory, and a file that appears later is served', async () => {
    expect((await get('/assets/late-1.js')).status).toBe(404);
    writeFileSync(join(dir, 'assets/late-1.js'), 'late();');
    const res = await get('/assets/late-1.js');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('late();');
  });

  it('one file is one cache entry, however its path is spelled', async () => {
    const spellings = [
      '/assets/index-abc123.js',
      '/assets//index-abc123.js',
      '/assets///index-abc123.js',
    ];
    const bodies = await Promise.all(spellings.map(async (path) => (await get(path)).text()));
    expect(new Set(bodies)).toEqual(new Set([script]));
    expect(cachedFiles()).toBeLessThanOrEqual(3); // the page, the script, late-1.js
  });

  it('serves hashed assets immutable, gzipped when asked, and revalidates with the ETag', async () => {
    const plain = await get('/assets/index-abc123.js');
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toContain('immutable');
    expect(await plain.text()).toBe(script);
    const zipped = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, br' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString()).toBe(script);
    const again = await get('/assets/index-abc123.js', {
      'if-none-match': plain.headers.get('etag')!,
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-request-id')).not.toBeNull();
  });

  it('never answers the page for a missing asset, an API path, an escape or an unknown type', async () => {
    expect((await get('/assets/gone-123.js')).status).toBe(404);
    expect(await (await get('/v1/ping')).json()).toEqual({ ok: true });
    expect(await (await get('/v1/nothing')).text()).toBe('api 404');
    expect(await (await get('/openapi.json')).text()).toBe('api 404');
    for (const path of ['/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fpackage.json'])
      expect(await (await get(path)).text(), path).not.toContain('root:');
    expect(await (await get('/secret.env')).text()).toBe(page);
  });
});
