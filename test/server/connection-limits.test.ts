import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { type PlaitaProcess, startServe } from './support/serve-process.js';

/**
 * How `plaita serve` treats connections as clients in any language meet them: an oversized body
 * is answered with a 413 the client can read (never a reset), whatever its size and however it
 * is framed; an idle keep-alive connection can be reused past Node's 5 s default.
 */

const MiB = 1024 * 1024;
let serve: PlaitaProcess;
let key: string;

beforeAll(async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'plaita-connections-'));
  serve = await startServe(['--store', `sqlite:${join(cwd, 'p.db')}`], { cwd });
  key = serve.adminKey!;
}, 30_000);
afterAll(async () => {
  await serve.stop();
});

/** A JSON body of about `bytes`. */
const jsonOf = (bytes: number): string => `{"input":{"a":"${'x'.repeat(bytes)}"}}`;

async function expectReadable413(response: Response): Promise<void> {
  expect(response.status).toBe(413);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.headers.get('connection')).toBe('close');
  const problem = (await response.json()) as Record<string, unknown>;
  expect(problem).toMatchObject({ status: 413, code: 'payload_too_large' });
  expect(problem.requestId).toBe(response.headers.get('x-request-id'));
}

describe('a body over the limit', () => {
  const routes: [string, string][] = [
    ['POST', '/v1/executions'],
    ['PUT', '/v1/flows/big/versions/1.0.0'],
    ['POST', '/v1/approval-links/some-token'],
    ['POST', '/v1/no-such-route'],
  ];

  it.each([3, 8, 50])(
    'of %i MiB gets a readable 413 on every route that takes a body, four at a time',
    async (mib) => {
      const body = jsonOf(mib * MiB);
      for (const [method, path] of routes) {
        const answers = await Promise.all(
          Array.from({ length: 4 }, () =>
            fetch(`${serve.url}${path}`, {
              method,
              headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              body,
            }),
          ),
        );
        for (const answer of answers) await expectReadable413(answer);
      }
    },
    60_000,
  );

  it('sent chunked, with no length to refuse it by, gets the same 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(MiB));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const answer = await fetch(`${serve.url}/v1/executions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    await expectReadable413(answer);
  });

  it('from a client that keeps sending is answered while it sends, then the server closes', async () => {
    const { port } = new URL(serve.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (text: string) => (received += text));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined); // the reset at the end is expected
    socket.write(
      `POST /v1/executions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${1024 * MiB}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 120);
    let written = 0;
    const pump = (): void => {
      while (!socket.destroyed && written < 1024 * MiB && socket.write(chunk))
        written += chunk.length;
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).toContain('"code":"payload_too_large"');
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    // It read and threw away a bounded amount, not the gigabyte announced.
    expect(written).toBeLessThan(512 * MiB);
  });

  it('within the limit still arrives whole, however it is framed', async () => {
    const chunks = [
      '{"flow":{"nodes":[{"id":"s","type":"start","next":"e"},',
      '{"id":"e","type":"end",',
      '"output":"$INPUT.a"}]},"input":{"a":"',
      'y'.repeat(512 * 1024),
      '"}}',
    ];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of chunks) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    const answer = await fetch(`${serve.url}/v1/executions?wait=10s`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    expect(answer.status, await answer.clone().text()).toBe(201);
    const { result } = (await answer.json()) as { result?: string };
    expect(result).toHaveLength(512 * 1024);
  });
});

/** GET /healthz on `agent`; whether the request went out on a socket used before. */
function healthz(
  url: string,
  agent: Agent,
): Promise<{ status: number; reused: boolean; keepAlive: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          reused: req.reusedSocket,
          keepAlive: res.headers['keep-alive']?.toString(),
        }),
      );
    });
    req.once('error', reject).end();
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('keep-alive', () => {
  it('a connection idle past Node’s 5 s default is reused without an error', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await healthz(serve.url, agent);
    expect(first).toMatchObject({ status: 200, reused: false, keepAlive: 'timeout=65' });
    await sleep(6_500);
    expect(await healthz(serve.url, agent)).toMatchObject({ status: 200, reused: true });
    agent.destroy();
  }, 20_000);

  it('--keep-alive-timeout sets how long the server keeps an idle connection', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaita-keep-alive-'));
    const short = await startServe(
      ['--store', `sqlite:${join(cwd, 'p.db')}`, '--keep-alive-timeout', '1000'],
      { cwd },
    );
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      expect(await healthz(short.url, agent)).toMatchObject({ keepAlive: 'timeout=1' });
      const sockets = agent.freeSockets;
      await sleep(1_800); // the server closed it; the agent saw the close and makes a new one
      expect(Object.values(sockets).flat()).toHaveLength(0);
      expect(await healthz(short.url, agent)).toMatchObject({ status: 200, reused: false });
      agent.destroy();
    } finally {
      await short.stop();
    }
  }, 30_000);

  it('refuses a headers timeout that is not above the keep-alive timeout', () => {
    const out = cli(['serve', '--keep-alive-timeout', '70000', '--headers-timeout', '60000']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--headers-timeout 60000 must be above --keep-alive-timeout 70000/);
  });
});
