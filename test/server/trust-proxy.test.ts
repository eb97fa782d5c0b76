import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clientAddressResolver } from '../../src/server/client-address.js';
import { cli } from '../cli/run-cli.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';
import { type PlaitaProcess, startServe } from './support/serve-process.js';

/**
 * Behind a load balancer every request comes from the balancer's address: without
 * `--trust-proxy` the audit log names the proxy for every write, and callers without a key
 * (approvers' links, logins) share one rate-limit bucket, so one of them flooding locks the
 * others out. With it, `X-Forwarded-For` is believed from the named proxies only.
 */
let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function login(from: string) {
  return api!.fetch('/v1/sessions', {
    method: 'POST',
    token: null,
    headers: { 'x-forwarded-for': from },
    json: { apiKey: 'plt_0000000000000000_not-a-key' },
  });
}

async function floodThenOther(trusted: string[]): Promise<number[]> {
  api = await startApi({
    worker: false,
    app: {
      rateLimit: { perSecond: 0.001, burst: 2 },
      clientAddress: clientAddressResolver(trusted),
    },
  });
  const statuses: number[] = [];
  for (const from of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2'])
    statuses.push((await login(from)).status);
  return statuses;
}

describe('--trust-proxy', () => {
  it('behind a trusted proxy, callers without a key get a bucket per forwarded address', async () => {
    const [first, second, third, other] = await floodThenOther(['loopback']);
    expect([first, second]).not.toContain(429);
    expect(third).toBe(429);
    expect(other).not.toBe(429);
  });

  it('without it, X-Forwarded-For is not believed: the forwarded addresses share the peer’s bucket', async () => {
    const statuses = await floodThenOther([]);
    expect(statuses.slice(2)).toEqual([429, 429]);
  });

  it('a forwarded address is read from the right: an address the caller put in front is not taken', async () => {
    api = await startApi({
      worker: false,
      app: { clientAddress: clientAddressResolver(['loopback', '10.0.0.0/8']) },
    });
    const created = await api.fetch('/v1/api-keys', {
      method: 'POST',
      headers: { 'x-forwarded-for': '192.0.2.66, 198.51.100.7, 10.1.2.3' },
      json: { name: 'ci', role: 'viewer', tenant: 'default' },
    });
    expect(created.status).toBe(201);
    const audit = await body<{ items: Array<{ action: string; clientAddress: string | null }> }>(
      await api.fetch('/v1/audit'),
    );
    const entry = audit.items.find((e) => e.action === 'api_key.create');
    expect(entry?.clientAddress).toBe('198.51.100.7');
  });
});

describe('plaita serve --trust-proxy', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'plaita-trust-proxy-'));
  let server: PlaitaProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(cwd, { recursive: true, force: true });
  }, 30_000);

  it('records the forwarded client in the audit log', async () => {
    server = await startServe(['--trust-proxy', 'loopback'], { cwd });
    const headers = {
      authorization: `Bearer ${server.adminKey}`,
      'content-type': 'application/json',
      'x-forwarded-for': '198.51.100.23',
    };
    const created = await fetch(`${server.url}/v1/api-keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'ops', role: 'operator', tenant: 'default' }),
    });
    expect(created.status).toBe(201);
    const audit = (await (await fetch(`${server.url}/v1/audit`, { headers })).json()) as {
      items: Array<{ action: string; clientAddress: string | null }>;
    };
    expect(audit.items.find((e) => e.action === 'api_key.create')?.clientAddress).toBe(
      '198.51.100.23',
    );
  });

  it('refuses a malformed entry before it opens anything, naming it', () => {
    const run = cli(['serve', '--trust-proxy', 'loopback,10.0.0.300'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--trust-proxy');
    expect(run.stderr).toContain('10.0.0.300');
  });
});
