import { afterEach, describe, expect, it } from 'vitest';
import { addressBucket } from '../../src/server/rate-limit.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

/**
 * `--rate-limit`: a bucket per API key, and for callers without one (an approver's signed link,
 * a login) a bucket per client address — one anonymous caller flooding the server must not lock
 * the others out. The client address comes from a test header here (the real server reads the
 * socket's remote address).
 */
let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const login = (from: string) =>
  api!.fetch('/v1/sessions', {
    method: 'POST',
    token: null,
    headers: { 'x-test-client': from },
    json: { apiKey: 'plt_0000000000000000_not-a-key' },
  });

describe('rate limits', () => {
  it('an address whose keys keep failing is refused without a store read; a valid key from it still works', async () => {
    api = await startApi({
      worker: false,
      app: {
        rateLimit: { perSecond: 1000, burst: 2000 },
        // 50 failures, then (as good as) none: no refill during the test, however slow it runs.
        failedCredentialLimit: { perSecond: 0.001, burst: 50 },
        clientAddress: (c) => c.req.header('x-test-client') ?? null,
      },
    });
    const store = api.app.services.control;
    const get = store.get.bind(store);
    let reads = 0;
    store.get = (key) => (reads++, get(key));
    const guess = (n: number) =>
      api!.fetch('/v1/executions', {
        token: `plt_${n.toString(16).padStart(16, '0')}_${'x'.repeat(43)}`,
        headers: { 'x-test-client': '10.0.0.9' },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await guess(i)).status);
    expect(statuses.slice(0, 50)).toEqual(Array(50).fill(401));
    expect(statuses.slice(-5)).toEqual(Array(5).fill(429));
    const readsBefore = reads;
    expect((await guess(999)).status).toBe(429);
    expect(reads).toBe(readsBefore); // refused before the key was looked up
    // The admin key, verified a moment ago, still works from the same address.
    await api.fetch('/v1/executions');
    const own = await api.fetch('/v1/executions', { headers: { 'x-test-client': '10.0.0.9' } });
    expect(own.status).toBe(200);
    // Another address is not affected.
    expect(
      (
        await api.fetch('/v1/executions', {
          token: 'plt_0000000000000abc_' + 'y'.repeat(43),
          headers: { 'x-test-client': '10.0.0.10' },
        })
      ).status,
    ).toBe(401);
  });

  it('an anonymous caller over its limit is refused; another address and a key still pass', async () => {
    api = await startApi({
      worker: false,
      app: {
        rateLimit: { perSecond: 0.001, burst: 2 },
        clientAddress: (c) => c.req.header('x-test-client') ?? null,
      },
    });
    const flooder = [await login('10.0.0.1'), await login('10.0.0.1'), await login('10.0.0.1')];
    expect(flooder.map((r) => r.status).slice(0, 2)).not.toContain(429);
    expect(flooder[2]!.status).toBe(429);
    expect((await body<{ code: string }>(flooder[2]!)).code).toBe('rate_limited');
    expect(flooder[2]!.headers.get('retry-after')).not.toBeNull();
    expect((await login('10.0.0.2')).status).not.toBe(429);
    expect((await api.fetch('/v1/executions')).status).toBe(200);
  });
});

describe('the bucket of a caller without a key', () => {
  it('is its IPv4 address, or its IPv6 /64: rotating addresses inside one /64 gains nothing', () => {
    expect(addressBucket('203.0.113.9')).toBe('203.0.113.9');
    expect(addressBucket('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket(null)).toBe('unknown');
  });

  it('a flood from one /64 is refused whatever address in it it comes from', async () => {
    api = await startApi({
      worker: false,
      app: {
        rateLimit: { perSecond: 0.001, burst: 2 },
        clientAddress: (c) => c.req.header('x-test-client') ?? null,
      },
    });
    const statuses = [];
    for (const host of ['::1', '::2', '::3'])
      statuses.push((await login(`2001:db8:7:7${host}`)).status);
    expect(statuses[2]).toBe(429);
    expect((await login('2001:db8:7:8::1')).status).not.toBe(429);
  });
});

describe('requests in flight per key', () => {
  const echo = {
    flow_id: 'echo',
    nodes: [
      { type: 'start', id: 'start', next: 'end' },
      { type: 'end', id: 'end', output: '$INPUT' },
    ],
  };

  it('a key over --max-in-flight is answered 429 with Retry-After until one of its requests ends', async () => {
    // No worker: the execution never settles, so a read with ?wait holds its request.
    api = await startApi({ worker: false, app: { maxInFlight: 2 } });
    const started = await api.fetch('/v1/executions', {
      method: 'POST',
      json: { flow: echo, input: {} },
    });
    expect(started.status).toBe(201);
    const { executionId } = await body<{ executionId: string }>(started);
    const held = [1, 2].map(() => api!.fetch(`/v1/executions/${executionId}?wait=2`));
    // Both are in the server once a third is refused (polled: they take a moment to arrive).
    let third: Response | undefined;
    await expect
      .poll(
        async () => {
          third = await api!.fetch(`/v1/executions/${executionId}`);
          return third.status;
        },
        { timeout: 5_000, interval: 20 },
      )
      .toBe(429);
    expect(third!.headers.get('retry-after')).toBe('1');
    expect(await body<{ code: string }>(third!)).toMatchObject({ code: 'rate_limited' });
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await api.fetch(`/v1/executions/${executionId}`)).status).toBe(200);
  });
});
