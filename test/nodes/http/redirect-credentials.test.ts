import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlow } from '../../../src/engine/run-flow.js';
import type { HttpRequest } from '../../../src/nodes/io/build-request.js';
import { CROSS_ORIGIN_HEADERS, nextHop } from '../../../src/nodes/io/redirect-hop.js';
import { silentLogger } from '../../../src/util/logger.js';
import { TestServer, redirect, sendJson, type SeenRequest } from './test-server.js';

/** Two servers on two ports: two origins. A redirects, B echoes. */
let a: TestServer;
let b: TestServer;

const FLOW_HEADERS = {
  Authorization: 'Bearer secret',
  Cookie: 'session=s3cr3t',
  'X-Api-Key': 'key-1',
  'Proxy-Authorization': 'Basic cHJveHk=',
  'X-Custom-Token': 'tok',
  Accept: 'application/json',
  'Accept-Language': 'fr',
  'User-Agent': 'plaita-test',
  'If-None-Match': '"v1"',
  'X-Request-Id': 'req-1',
  'Cache-Control': 'no-cache',
};
const DROPPED = ['authorization', 'cookie', 'x-api-key', 'proxy-authorization', 'x-custom-token'];
const KEPT = {
  accept: 'application/json',
  'accept-language': 'fr',
  'user-agent': 'plaita-test',
  'if-none-match': '"v1"',
  'x-request-id': 'req-1',
  'cache-control': 'no-cache',
  'content-type': 'application/json',
  'idempotency-key': 'exec-r:call:1',
};

beforeAll(async () => {
  [a, b] = await Promise.all([TestServer.start(), TestServer.start()]);
  for (const server of [a, b]) {
    server.route('/echo', (req, res) =>
      sendJson(res, 200, { method: req.method, body: req.body, headers: req.headers }),
    );
  }
  for (const status of [301, 302, 303, 307, 308]) {
    a.route(`/to-b/${status}`, (_req, res) => redirect(res, status, b.url('/echo')));
  }
  a.route('/same/307', (_req, res) => redirect(res, 307, '/echo'));
  b.route('/back-to-a', (_req, res) => redirect(res, 307, a.url('/echo')));
  a.route('/a-b-a', (_req, res) => redirect(res, 307, b.url('/back-to-a')));
});

afterAll(() => Promise.all([a.close(), b.close()]));

function call(url: string, http: Record<string, unknown> = {}): Promise<unknown> {
  const flow = {
    flow_id: 'redirects',
    nodes: [
      { type: 'start', id: 'start', next: 'call' },
      { type: 'http', id: 'call', next: 'end', url, headers: FLOW_HEADERS, ...http },
      { type: 'end', id: 'end', output: '$NODE.call' },
    ],
  };
  return runFlow(flow, {}, { executionId: 'exec-r', logger: silentLogger });
}

function last(server: TestServer): SeenRequest {
  const seen = server.requests.at(-1);
  if (!seen) throw new Error('the server saw no request');
  return seen;
}

describe('redirect credentials (cross-origin allow-list)', () => {
  it('a cross-origin 307 carries no Cookie, X-Api-Key, Proxy-Authorization or custom token', async () => {
    await call(a.url('/to-b/307'));
    const seen = last(b);
    for (const name of DROPPED) expect(seen.headers).not.toHaveProperty(name);
    expect(seen.headers).toMatchObject(KEPT);
  });

  it('a same-origin 307 keeps every header the flow set', async () => {
    await call(a.url('/same/307'));
    const seen = last(a);
    expect(seen.url).toBe('/echo');
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer secret',
      cookie: 'session=s3cr3t',
      'x-api-key': 'key-1',
      'proxy-authorization': 'Basic cHJveHk=',
      'x-custom-token': 'tok',
      ...KEPT,
    });
  });

  it('headers dropped on a cross-origin hop stay dropped when the chain returns to the first origin', async () => {
    await call(a.url('/a-b-a'));
    const seen = last(a);
    expect(seen.url).toBe('/echo');
    for (const name of DROPPED) expect(seen.headers).not.toHaveProperty(name);
    expect(seen.headers).toMatchObject(KEPT);
  });
});

describe('redirect method and body', () => {
  it.each([307, 308])(
    'a cross-origin %i POST arrives at B with its method and body',
    async (status) => {
      const before = a.requests.length;
      await call(a.url(`/to-b/${status}`), { method: 'POST', body: { order: 42 } });
      expect(a.requests.at(before)?.body).toBe('{"order":42}');
      const seen = last(b);
      expect([seen.method, seen.body, seen.headers['content-type']]).toEqual([
        'POST',
        '{"order":42}',
        'application/json',
      ]);
    },
  );

  it.each([301, 302, 303])(
    'a %i POST arrives as GET without body or Content-Type',
    async (status) => {
      await call(a.url(`/to-b/${status}`), { method: 'POST', body: { order: 42 } });
      const seen = last(b);
      expect([seen.method, seen.body]).toEqual(['GET', '']);
      expect(seen.headers).not.toHaveProperty('content-type');
      expect(seen.headers).not.toHaveProperty('content-length');
    },
  );
});

describe('nextHop', () => {
  const previous = (method: HttpRequest['method'], url = 'https://api.example/a'): HttpRequest => ({
    url: new URL(url),
    method,
    headers: new Headers({
      'Content-Type': 'application/json',
      'Content-Language': 'en',
      Authorization: 'Bearer t',
      Accept: 'text/plain',
    }),
    body: '{"a":1}',
  });

  it('301 turns any method but HEAD into GET without body headers; 308 keeps everything', () => {
    const moved = nextHop(previous('PUT'), 301, new URL('https://api.example/b'));
    expect([moved.method, moved.body, [...moved.headers.keys()]]).toEqual([
      'GET',
      null,
      ['accept', 'authorization'],
    ]);
    const head = nextHop(previous('HEAD'), 302, new URL('https://api.example/b'));
    expect(head.method).toBe('HEAD');
    const kept = nextHop(previous('PATCH'), 308, new URL('https://api.example/b'));
    expect([kept.method, kept.body, kept.headers.get('authorization')]).toEqual([
      'PATCH',
      '{"a":1}',
      'Bearer t',
    ]);
  });

  it('another scheme or port is another origin; the previous request is left as it was', () => {
    const first = previous('POST');
    for (const target of ['http://api.example/a', 'https://api.example:8443/a']) {
      const hop = nextHop(first, 307, new URL(target));
      expect(hop.headers.has('authorization')).toBe(false);
      expect(hop.headers.get('accept')).toBe('text/plain');
    }
    expect(first.headers.get('authorization')).toBe('Bearer t');
  });

  it('the allow-list has no credential-carrying header', () => {
    for (const name of ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'])
      expect(CROSS_ORIGIN_HEADERS.has(name)).toBe(false);
  });
});
