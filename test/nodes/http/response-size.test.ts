import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeLimits } from '../../../src/flow/runtime-limits.js';
import { runFlow } from '../../../src/engine/run-flow.js';
import { FlowError, NodeError } from '../../../src/errors/flow-errors.js';
import { ResponseTooLargeError } from '../../../src/nodes/io/read-limited-body.js';
import { silentLogger } from '../../../src/util/logger.js';
import { TestServer } from './test-server.js';

const MIB = 1024 * 1024;
let server: TestServer;
/** Bytes the endless route managed to write before the client went away. */
let endlessSent = 0;

beforeAll(async () => {
  server = await TestServer.start();
  server.route('/bytes', (req, res) => {
    const n = Number(new URL(req.url, 'http://x').searchParams.get('n'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('a'.repeat(n)); // Content-Length set by node:http
  });
  server.route('/chunked', (req, res) => {
    const n = Number(new URL(req.url, 'http://x').searchParams.get('n'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('a'.repeat(n - 1)); // two writes: chunked, no Content-Length
    res.end('a');
  });
  server.route('/endless', (_req, res) => {
    endlessSent = 0;
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = (): void => {
      while (!res.destroyed && endlessSent < 1024 * MIB) {
        endlessSent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  server.route('/declared-huge', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000000000' });
    res.flushHeaders(); // and never a body byte: only Content-Length can refuse it quickly
  });
  server.route('/gzip', (_req, res) => {
    const body = gzipSync('a'.repeat(1000)); // ~30 bytes on the wire, 1000 decoded
    res.writeHead(200, {
      'content-type': 'text/plain',
      'content-encoding': 'gzip',
      'content-length': String(body.length),
    });
    res.end(body);
  });
  server.route('/head-huge', (_req, res) => {
    res.writeHead(200, { 'content-length': '1000000000' });
    res.end();
  });
});

afterAll(() => server.close());

function run(http: Record<string, unknown>, limits: Partial<RuntimeLimits> = {}): Promise<unknown> {
  const flow = {
    flow_id: 'response-size',
    nodes: [
      { type: 'start', id: 'start', next: 'call' },
      { type: 'http', id: 'call', next: 'end', ...http },
      { type: 'end', id: 'end', output: '$NODE.call' },
    ],
  };
  return runFlow(flow, {}, { executionId: 'exec-s', logger: silentLogger, limits });
}

/** The FlowError of a too-large response, checked down to its ResponseTooLargeError cause. */
async function tooLarge(promise: Promise<unknown>, limitBytes: number): Promise<FlowError> {
  const error = await promise.then(
    () => new Error('expected the flow to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FlowError);
  const flowError = error as FlowError;
  expect(flowError).toMatchObject({ type: 'node_error', node: 'call' });
  expect(flowError.cause).toMatchObject({
    name: 'NodeError',
    code: 1002,
    type: 'response_too_large',
  });
  const nodeError = flowError.originalError as NodeError;
  expect(nodeError).toBeInstanceOf(NodeError);
  expect(nodeError.cause).toBeInstanceOf(ResponseTooLargeError);
  expect(nodeError.cause).toMatchObject({ code: 'response_too_large', limitBytes });
  expect(nodeError.message).toContain(`exceeds maxResponseBytes (${limitBytes} bytes)`);
  return flowError;
}

describe('response size cap', () => {
  it("a chunked body over the node's maxResponseBytes is 1002, cause response_too_large", async () => {
    const url = server.url('/chunked?n=101');
    const error = await tooLarge(run({ url, maxResponseBytes: 100 }), 100);
    // The query's values are not repeated in the message (a token may ride there).
    expect(error.message).toContain(server.url('/chunked?n=…'));
    expect(error.message).not.toContain('n=101');
  });

  it('a body of exactly the cap is read (either spelling)', async () => {
    expect(await run({ url: server.url('/chunked?n=100'), max_response_bytes: 100 })).toBe(
      'a'.repeat(100),
    );
    expect(await run({ url: server.url('/bytes?n=100'), maxResponseBytes: 100 })).toBe(
      'a'.repeat(100),
    );
  });

  it('a Content-Length over the cap is refused before any body byte arrives', async () => {
    const started = Date.now();
    const error = await tooLarge(
      run({ url: server.url('/declared-huge'), maxResponseBytes: 1000, requestTimeout: 5 }),
      1000,
    );
    expect(error.message).toContain('Content-Length is 1000000000');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('an endless body is cut off once the count passes the cap, never buffered whole', async () => {
    const before = server.requests.length;
    await tooLarge(run({ url: server.url('/endless'), maxResponseBytes: MIB }), MIB);
    await server.requests[before]?.closed; // the client closed the connection
    // What the socket buffers held when the client stopped, never the 1 GiB on offer.
    expect(endlessSent).toBeLessThan(16 * MIB);
  });

  it("the operator's limit bounds a node that asks for more", async () => {
    await tooLarge(
      run(
        { url: server.url('/bytes?n=101'), maxResponseBytes: 10 * MIB },
        { maxResponseBytes: 100 },
      ),
      100,
    );
    // and the node's smaller cap wins over the operator's larger one
    await tooLarge(run({ url: server.url('/bytes?n=101'), maxResponseBytes: 100 }), 100);
  });

  it('the default operator ceiling is 10 MiB', async () => {
    await tooLarge(run({ url: server.url(`/bytes?n=${10 * MIB + 1}`) }), 10 * MIB);
  });

  it('a compressed body is capped on its decoded size, whatever Content-Length says', async () => {
    await tooLarge(run({ url: server.url('/gzip'), maxResponseBytes: 500 }), 500);
    expect(await run({ url: server.url('/gzip'), maxResponseBytes: 1000 })).toBe('a'.repeat(1000));
  });

  it("a HEAD response's Content-Length counts no body", async () => {
    expect(
      await run({
        url: server.url('/head-huge'),
        method: 'HEAD',
        maxResponseBytes: 10,
        output: '$NODE.call.status',
      }),
    ).toBe(200);
  });

  it("goes through the node's errorHandler like any node error", async () => {
    expect(
      await run({
        url: server.url('/bytes?n=101'),
        maxResponseBytes: 100,
        errorHandler: { strategy: 'continue-with', defaultValue: 'too big' },
      }),
    ).toBe('too big');
  });

  it.each([0, -1, 1.5, '100'])('maxResponseBytes %j is a definition error', async (value) => {
    await expect(run({ url: server.url('/bytes?n=1'), maxResponseBytes: value })).rejects.toThrow(
      /nodes\[1\]\.maxResponseBytes/,
    );
  });
});
