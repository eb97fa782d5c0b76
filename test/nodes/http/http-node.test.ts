import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlow } from '../../../src/engine/run-flow.js';
import { FlowError } from '../../../src/errors/flow-errors.js';
import { silentLogger } from '../../../src/util/logger.js';
import { TestServer, redirect, sendJson } from './test-server.js';

const EXECUTION_ID = 'exec-1';
let server: TestServer;
let flakyCalls = 0;

beforeAll(async () => {
  server = await TestServer.start();
  server.route('/json', (req, res) =>
    sendJson(res, 200, { method: req.method, x: 7 }, { trace_id: 't-1' }),
  );
  server.route('/text', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('plain words');
  });
  server.route('/echo', (req, res) =>
    sendJson(res, 200, { method: req.method, url: req.url, body: req.body, headers: req.headers }),
  );
  server.route('/missing', (_req, res) => sendJson(res, 404, { error: 'nope' }));
  server.route('/flaky', (_req, res) => {
    flakyCalls += 1;
    if (flakyCalls === 1) sendJson(res, 503, { error: 'try again' });
    else sendJson(res, 200, { ok: true });
  });
  server.route('/r301', (_req, res) => redirect(res, 301, '/echo'));
  server.route('/r307', (_req, res) => redirect(res, 307, '/echo'));
  server.route('/loop', (_req, res) => redirect(res, 302, '/loop'));
  server.route('/to-localhost', (_req, res) =>
    redirect(res, 302, server.url('/echo', 'localhost')),
  );
  server.route('/slow', () => undefined); // never answers
});

afterAll(() => server.close());

/** start → (before) → call → end, where `end` returns `$NODE.call`. */
function flow(
  http: Record<string, unknown>,
  extra: { top?: Record<string, unknown>; before?: Record<string, unknown> } = {},
) {
  const nodes: Array<Record<string, unknown>> = [
    { type: 'start', id: 'start', next: extra.before ? 'before' : 'call' },
  ];
  if (extra.before) nodes.push({ id: 'before', next: 'call', ...extra.before });
  nodes.push(
    { type: 'http', id: 'call', next: 'end', ...http },
    { type: 'end', id: 'end', output: '$NODE.call' },
  );
  return { flow_id: 'http-test', ...extra.top, nodes };
}

/** async: a definition error thrown while loading becomes a rejection too. */
async function run(document: Record<string, unknown>, input: unknown = {}): Promise<unknown> {
  return runFlow(document, input, { executionId: EXECUTION_ID, logger: silentLogger });
}

async function flowError(promise: Promise<unknown>): Promise<FlowError> {
  const error = await promise.then(
    () => new Error('expected the flow to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FlowError);
  return error as FlowError;
}

/** The request the server saw last, with its echo. */
async function echoed(http: Record<string, unknown>, extra?: Parameters<typeof flow>[1]) {
  return (await run(flow({ url: server.url('/echo'), ...http }, extra))) as {
    method: string;
    url: string;
    body: string;
    headers: Record<string, string>;
  };
}

describe('http node results', () => {
  it('GET: the body parsed as JSON, or the text when it does not parse', async () => {
    expect(await run(flow({ url: server.url('/json') }))).toEqual({ method: 'GET', x: 7 });
    expect(await run(flow({ url: server.url('/text') }))).toBe('plain words');
  });

  it('evaluates url, query, headers and body; POSTs JSON with Content-Type', async () => {
    const seen = (await run(
      flow({
        url: `http://127.0.0.1:{%$INPUT.port%}/echo?fixed=1`,
        method: 'post',
        query: { q: '$INPUT.q', n: 2 },
        headers: { 'X-From-Input': '$INPUT.token', 'X-Number': 5, 'X-Null': null },
        body: { name: '$INPUT.name', tags: ['a'] },
      }),
      { port: server.port, q: 'a b', token: 'tok', name: 'Ada' },
    )) as { method: string; url: string; body: string; headers: Record<string, string> };
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/echo?fixed=1&q=a+b&n=2');
    expect(JSON.parse(seen.body)).toEqual({ name: 'Ada', tags: ['a'] });
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['x-from-input']).toBe('tok');
    expect(seen.headers).not.toHaveProperty('x-number');
    expect(seen.headers).not.toHaveProperty('x-null');
  });

  it('drops the body of a GET (fetch cannot send it) instead of failing', async () => {
    const seen = await echoed({ body: { a: 1 } });
    expect([seen.method, seen.body]).toEqual(['GET', '']);
  });

  it('sends contentType (either spelling) but always a JSON body', async () => {
    const seen = await echoed({ method: 'PUT', content_type: 'text/plain', body: 'hi' });
    expect([seen.headers['content-type'], seen.body]).toEqual(['text/plain', '"hi"']);
  });

  it('output sees $NODE.<id> as {data, status, statusText, headers} and other nodes as before', async () => {
    const result = await run(
      flow(
        {
          url: server.url('/json'),
          output: {
            status: '$NODE.call.status',
            text: '$NODE.call.statusText',
            x: '$NODE.call.data.x',
            trace: '$NODE.call.headers.trace_id',
            before: '$NODE.before',
          },
        },
        { before: { type: 'mock', value: 'earlier' } },
      ),
    );
    expect(result).toEqual({ status: 200, text: 'OK', x: 7, trace: 't-1', before: 'earlier' });
  });

  it('a 4xx is a result by default and error 1003 with failOnStatus', async () => {
    expect(await run(flow({ url: server.url('/missing') }))).toEqual({ error: 'nope' });
    const error = await flowError(run(flow({ url: server.url('/missing'), failOnStatus: true })));
    expect(error).toMatchObject({ code: -9527, type: 'node_error', node: 'call' });
    expect(error.cause).toEqual({ name: 'NodeError', message: 'HTTP 404 Not Found', code: 1003 });
  });
});

describe('http node Idempotency-Key', () => {
  it('is <executionId>:<nodeId>:<visit> and the same on every retry of the visit', async () => {
    flakyCalls = 0;
    const before = server.requests.length;
    const result = await run(
      flow({ url: server.url('/flaky'), failOnStatus: true, errorHandler: { retryTimes: 2 } }),
    );
    expect(result).toEqual({ ok: true });
    const keys = server.requests.slice(before).map((r) => r.headers['idempotency-key']);
    expect(keys).toEqual([`${EXECUTION_ID}:call:1`, `${EXECUTION_ID}:call:1`]);
  });

  it('is absent when the flow or the node disables it, or when the user supplies one', async () => {
    expect((await echoed({}, { top: { idempotencyKey: false } })).headers).not.toHaveProperty(
      'idempotency-key',
    );
    expect((await echoed({ idempotencyKey: false })).headers).not.toHaveProperty('idempotency-key');
    expect(
      (await echoed({ headers: { 'idempotency-KEY': 'mine' } })).headers['idempotency-key'],
    ).toBe('mine');
  });

  it('percent-encodes what is not visible ASCII', async () => {
    const seen = (await runFlow(
      flow({ url: server.url('/echo') }),
      {},
      { executionId: 'run é', logger: silentLogger },
    )) as { headers: Record<string, string> };
    expect(seen.headers['idempotency-key']).toBe('run%20%C3%A9:call:1');
  });

  it("the node's explicit true overrides the flow's false", async () => {
    expect(
      (await echoed({ idempotencyKey: true }, { top: { idempotencyKey: false } })).headers[
        'idempotency-key'
      ],
    ).toBe(`${EXECUTION_ID}:call:1`);
  });
});

describe('http node redirects and host policy', () => {
  it('301 turns POST into GET; 307 keeps the method', async () => {
    expect(
      await run(
        flow({
          url: server.url('/r301'),
          method: 'POST',
          body: { a: 1 },
          output: '$NODE.call.data.method',
        }),
      ),
    ).toBe('GET');
    expect(
      await run(
        flow({ url: server.url('/r307'), method: 'DELETE', output: '$NODE.call.data.method' }),
      ),
    ).toBe('DELETE');
  });

  it('more than maxRedirects hops is 1002', async () => {
    const error = await flowError(run(flow({ url: server.url('/loop'), max_redirects: 3 })));
    expect(error.cause).toMatchObject({
      code: 1002,
      message: expect.stringMatching(/^too many redirects: more than 3/) as unknown,
    });
  });

  it('a redirect to a denied host is 1002 and never sent', async () => {
    const before = server.requests.length;
    const error = await flowError(
      run(flow({ url: server.url('/to-localhost'), deniedHosts: ['LOCALHOST'] })),
    );
    expect(error.cause).toMatchObject({
      code: 1002,
      message: expect.stringContaining(
        'host "localhost" matches deniedHosts entry "LOCALHOST"',
      ) as unknown,
    });
    expect(server.requests.length - before).toBe(1);
  });

  it('allowedHosts by *.suffix and by CIDR admit the host', async () => {
    const url = server.url('/json', 'localhost');
    expect(await run(flow({ url, allowedHosts: ['*.localhost'] }))).toEqual({
      method: 'GET',
      x: 7,
    });
    expect(await run(flow({ url, allowed_hosts: ['example.com', '127.0.0.0/8'] }))).toEqual({
      method: 'GET',
      x: 7,
    });
  });

  it.each([
    [
      'allowedHosts misses',
      { allowedHosts: ['*.example.com', '10.0.0.0/8'] },
      'is not in allowedHosts [*.example.com, 10.0.0.0/8]',
    ],
    [
      'deniedHosts *.suffix',
      { deniedHosts: ['*.LOCALHOST'] },
      'matches deniedHosts entry "*.LOCALHOST"',
    ],
    [
      'deniedHosts CIDR',
      { denied_hosts: ['127.0.0.1/32'] },
      'which matches deniedHosts entry "127.0.0.1/32"',
    ],
  ])('%s → 1002 naming the rule', async (_name, policy, message) => {
    const before = server.requests.length;
    const error = await flowError(run(flow({ url: server.url('/json', 'localhost'), ...policy })));
    expect(error.cause).toMatchObject({
      code: 1002,
      message: expect.stringContaining(message) as unknown,
    });
    expect(server.requests.length).toBe(before);
  });

  it.each(['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]'])(
    'blockPrivateNetworks refuses %s',
    async (host) => {
      const before = server.requests.length;
      const error = await flowError(
        run(flow({ url: server.url('/json', host), blockPrivateNetworks: true })),
      );
      expect(error.cause).toMatchObject({
        code: 1002,
        message: expect.stringContaining('private/special address') as unknown,
      });
      expect(server.requests.length).toBe(before);
    },
  );
});

describe('http node failures', () => {
  it('a node timeout aborts the request in flight (the server sees the socket close)', async () => {
    const before = server.requests.length;
    const started = Date.now();
    const error = await flowError(run(flow({ url: server.url('/slow'), timeout: 'PT0.3S' })));
    expect(error).toMatchObject({ name: 'NodeTimeout', code: -1, node: 'call' });
    expect(Date.now() - started).toBeLessThan(5000);
    const request = server.requests[before];
    expect(request?.url).toBe('/slow');
    await expect(
      Promise.race([
        request!.closed.then(() => 'closed'),
        new Promise((r) => setTimeout(() => r('still open'), 2000)),
      ]),
    ).resolves.toBe('closed');
  });

  it.each([0.2, 'PT0.2S'])('a per-hop requestTimeout of %s is 1002', async (requestTimeout) => {
    const error = await flowError(run(flow({ url: server.url('/slow'), requestTimeout })));
    expect(error.cause).toMatchObject({
      code: 1002,
      message: expect.stringContaining('timed out after 0.2s') as unknown,
    });
  });

  it('an invalid URL or a failing expression is 1001', async () => {
    expect((await flowError(run(flow({ url: 'not a url' })))).cause).toEqual({
      name: 'NodeError',
      message: 'invalid URL "not a url"',
      code: 1001,
    });
    expect(
      (await flowError(run(flow({ url: server.url('/json'), body: '$F.no_such_function()' }))))
        .cause,
    ).toMatchObject({ code: 1001 });
  });

  it('a contentType the header API refuses is 1001, named, like a bad header', async () => {
    for (const contentType of ['a\nb', 'a\u0000b', 'text/plain; a=→']) {
      const { cause } = await flowError(run(flow({ url: server.url('/json'), contentType })));
      expect(cause).toMatchObject({
        code: 1001,
        message: expect.stringContaining('invalid header "Content-Type"') as unknown,
      });
    }
  });

  it('a requestTimeout past what a timer can hold (≈ 24.8 days) is no bound, not 1 ms', async () => {
    expect(await run(flow({ url: server.url('/json'), requestTimeout: 'P30D' }))).toEqual({
      method: 'GET',
      x: 7,
    });
  });

  it('an unknown method or a bad requestTimeout is a definition error', async () => {
    await expect(run(flow({ url: server.url('/json'), method: 'FETCH' }))).rejects.toThrow(
      /nodes\[1\]\.method: expected GET \| HEAD \| POST \| PUT \| DELETE \| PATCH \| CONNECT \| OPTIONS \| TRACE/,
    );
    await expect(run(flow({ url: server.url('/json'), request_timeout: 'soon' }))).rejects.toThrow(
      /nodes\[1\]\.request_timeout: invalid duration "soon"/,
    );
  });
});
