import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeError } from '../../../src/errors/flow-errors.js';
import { buildRequest, type RequestParts } from '../../../src/nodes/io/build-request.js';
import { HostPolicy, type HostPolicyOptions } from '../../../src/nodes/io/host-policy.js';
import { sendRequest, type SendOptions } from '../../../src/nodes/io/send-request.js';
import { TestServer, redirect, sendJson } from './test-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start();
  server.route('/json', (req, res) =>
    sendJson(res, 200, { method: req.method, body: req.body }, { 'X-Trace': 'abc' }),
  );
  server.route('/text', (_req, res) => {
    res.writeHead(202, 'Taken', { 'content-type': 'text/plain; charset=iso-8859-1' });
    res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
  });
  server.route('/cookies', (_req, res) => {
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.end('');
  });
  for (const status of [301, 302, 303, 307, 308])
    server.route(`/r${status}`, (_req, res) => redirect(res, status, '/json'));
  server.route('/chain', (req, res) => {
    const n = Number(new URL(req.url, 'http://x').searchParams.get('n'));
    if (n > 0) redirect(res, 302, `/chain?n=${n - 1}`);
    else sendJson(res, 200, 'end of chain');
  });
  server.route('/to-localhost', (_req, res) =>
    redirect(res, 302, server.url('/json', 'localhost')),
  );
  server.route('/to-file', (_req, res) => redirect(res, 302, 'file:///etc/passwd'));
  server.route('/no-location', (_req, res) => {
    res.writeHead(302);
    res.end('stay');
  });
  server.route('/slow', () => undefined); // never answers
});

afterAll(() => server.close());

function request(path: string, overrides: Partial<RequestParts> = {}) {
  return buildRequest({
    url: server.url(path),
    method: 'GET',
    contentType: 'application/json',
    headers: null,
    query: null,
    body: null,
    idempotencyKey: null,
    ...overrides,
  });
}

function options(
  overrides: Partial<SendOptions> & { hosts?: Partial<HostPolicyOptions> } = {},
): SendOptions {
  const { hosts, ...rest } = overrides;
  return {
    policy: new HostPolicy({
      allowedHosts: [],
      deniedHosts: [],
      blockPrivateNetworks: false,
      ...hosts,
    }),
    maxRedirects: 5,
    hopTimeoutMs: 5000,
    maxResponseBytes: 1024 * 1024,
    signal: new AbortController().signal,
    ...rest,
  };
}

async function failure(promise: Promise<unknown>): Promise<NodeError> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NodeError);
  return error as NodeError;
}

describe('sendRequest responses', () => {
  it('returns status, status text, lower-case headers and parsed JSON', async () => {
    const response = await sendRequest(
      request('/json', { method: 'POST', body: { a: 1 } }),
      options(),
    );
    expect(response).toMatchObject({
      status: 200,
      statusText: 'OK',
      data: { method: 'POST', body: '{"a":1}' },
    });
    expect(response.headers['x-trace']).toBe('abc');
    expect(response.headers['content-type']).toBe('application/json');
  });

  it('decodes text with the declared charset and keeps a custom status text', async () => {
    expect(await sendRequest(request('/text'), options())).toMatchObject({
      status: 202,
      statusText: 'Taken',
      data: 'café',
    });
  });

  it('joins repeated headers', async () => {
    expect((await sendRequest(request('/cookies'), options())).headers['set-cookie']).toBe(
      'a=1, b=2',
    );
  });
});

describe('sendRequest redirects', () => {
  it.each([301, 302, 303])(
    '%i turns POST into GET, drops the body and Content-Type',
    async (status) => {
      const response = await sendRequest(
        request(`/r${status}`, { method: 'POST', body: { big: true } }),
        options(),
      );
      expect(response.data).toEqual({ method: 'GET', body: '' });
      const hops = server.requests.slice(-2);
      expect(hops.map((r) => [r.method, r.url, r.headers['content-type']])).toEqual([
        ['POST', `/r${status}`, 'application/json'],
        ['GET', '/json', undefined],
      ]);
    },
  );

  it.each([307, 308])('%i keeps the method and sends the body again', async (status) => {
    const response = await sendRequest(
      request(`/r${status}`, { method: 'PUT', body: [1] }),
      options(),
    );
    expect(response.data).toEqual({ method: 'PUT', body: '[1]' });
    expect(server.requests.at(-2)?.body).toBe('[1]');
  });

  it('keeps HEAD on a 302', async () => {
    await sendRequest(request('/r302', { method: 'HEAD' }), options());
    expect(server.requests.slice(-2).map((r) => r.method)).toEqual(['HEAD', 'HEAD']);
  });

  it('follows exactly maxRedirects hops and fails with 1002 beyond', async () => {
    expect((await sendRequest(request('/chain?n=2'), options({ maxRedirects: 2 }))).data).toBe(
      'end of chain',
    );
    const before = server.requests.length;
    const error = await failure(sendRequest(request('/chain?n=3'), options({ maxRedirects: 2 })));
    expect(error.code).toBe(1002);
    expect(error.message).toMatch(/^too many redirects: more than 2/);
    expect(server.requests.length - before).toBe(3);
    expect((await failure(sendRequest(request('/r302'), options({ maxRedirects: 0 })))).code).toBe(
      1002,
    );
  });

  it('a 3xx without Location is the final response', async () => {
    expect(await sendRequest(request('/no-location'), options())).toMatchObject({
      status: 302,
      data: 'stay',
    });
  });

  it('re-checks the policy on every hop', async () => {
    const before = server.requests.length;
    const error = await failure(
      sendRequest(request('/to-localhost'), options({ hosts: { deniedHosts: ['localhost'] } })),
    );
    expect(error.code).toBe(1002);
    expect(error.message).toBe(
      `request to ${server.url('/json', 'localhost')} refused: host "localhost" matches deniedHosts entry "localhost"`,
    );
    expect(server.requests.length - before).toBe(1);
    expect((await failure(sendRequest(request('/to-file'), options()))).message).toContain(
      'scheme "file"',
    );
  });

  it('keeps Authorization on the same origin only (another host name is another origin)', async () => {
    await sendRequest(request('/r307', { headers: { Authorization: 'Bearer t' } }), options());
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer t');
    await sendRequest(
      request('/to-localhost', { headers: { Authorization: 'Bearer t', 'X-Other': 'dropped' } }),
      options(),
    );
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
    expect(server.requests.at(-1)?.headers['x-other']).toBeUndefined();
  });
});

describe('sendRequest failures', () => {
  it('a hop that outlives requestTimeout fails with 1002 and closes the connection', async () => {
    const started = Date.now();
    const error = await failure(sendRequest(request('/slow'), options({ hopTimeoutMs: 200 })));
    expect(error.code).toBe(1002);
    expect(error.message).toBe(
      `request to ${server.url('/slow')} timed out after 0.2s (requestTimeout)`,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    await server.requests.at(-1)?.closed;
  });

  it('requestTimeout still fires while the garbage collector runs', async () => {
    // Node 20 may collect an AbortSignal.timeout held only by AbortSignal.any before it fires
    // (nodejs/node#57736): under GC pressure such a hop never timed out (CI hung 30 s on one).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collecting = setInterval(gc, 5);
    try {
      for (let i = 0; i < 3; i++) {
        const error = await failure(sendRequest(request('/slow'), options({ hopTimeoutMs: 100 })));
        expect(error.message).toContain('timed out after 0.1s (requestTimeout)');
      }
    } finally {
      clearInterval(collecting);
    }
  });

  it("the node's own abort propagates its reason untouched", async () => {
    const controller = new AbortController();
    const reason = new Error('node timed out');
    setTimeout(() => controller.abort(reason), 100);
    await expect(
      sendRequest(request('/slow'), options({ signal: controller.signal })),
    ).rejects.toBe(reason);
    await server.requests.at(-1)?.closed;
  });

  it('connection refused and unresolvable hosts are 1002', async () => {
    const closed = await TestServer.start();
    const url = closed.url('/x');
    await closed.close();
    const refused = await failure(
      sendRequest(
        buildRequest({
          url,
          method: 'GET',
          contentType: null,
          headers: null,
          query: null,
          body: null,
          idempotencyKey: null,
        }),
        options(),
      ),
    );
    expect(refused.code).toBe(1002);
    expect(refused.message).toContain('ECONNREFUSED');
    const unresolvable = await failure(
      sendRequest(
        buildRequest({
          url: 'http://no-such-host.invalid/',
          method: 'GET',
          contentType: null,
          headers: null,
          query: null,
          body: null,
          idempotencyKey: null,
        }),
        options(),
      ),
    );
    expect(unresolvable).toMatchObject({
      code: 1002,
      message: expect.stringContaining('cannot resolve host "no-such-host.invalid"') as unknown,
    });
  });
});
