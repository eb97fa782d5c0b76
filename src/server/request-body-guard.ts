import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../util/logger.js';
import { ApiProblem, problemBody } from './problem.js';
import { requestIdFor } from './request-id.js';

export interface BodyGuardOptions {
  maxBodyBytes: number;
  log: Logger;
  /** What is read and thrown away after refusing a body, before the connection is closed. */
  lingerBytes?: number;
  /** How long that may take, in all, and between two chunks. */
  lingerMs?: number;
  lingerIdleMs?: number;
}

/** Read by @hono/node-server instead of the socket: the body the guard has already read. */
type BufferedRequest = IncomingMessage & { rawBody?: Buffer };

/**
 * Reads every request body before the app sees it, at most `maxBodyBytes` of it. A larger one
 * (declared or counted) is answered `413 payload_too_large` at once, while the client is still
 * sending, and the rest is read and thrown away up to a bound before the connection closes
 * (RFC 9112 §9.6): a client that stops at its end reads the answer, never a reset.
 */
export function guardRequestBodies(
  listener: (req: IncomingMessage, res: ServerResponse) => unknown,
  options: BodyGuardOptions,
): RequestListener {
  return (req: BufferedRequest, res) => {
    const declared = declaredLength(req);
    // No body to read: a GET, or a request framed with neither header (HTTP/1.1: no body).
    if (req.method === 'GET' || req.method === 'HEAD' || declared === 0)
      return void listener(req, res);
    if (declared !== null && declared > options.maxBodyBytes)
      return refuse(req, res, options, declared);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= options.maxBodyBytes) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      chunks.length = 0;
      refuse(req, res, options, size);
    };
    const onEnd = (): void => {
      req.rawBody = Buffer.concat(chunks, size);
      void listener(req, res);
    };
    req.on('data', onData).on('end', onEnd);
    // A client gone mid-body gets no answer; the socket's own error handling closes it.
    req.on('error', () => undefined);
  };
}

/**
 * The body's length when Content-Length frames it (0 with neither header), null when a
 * Transfer-Encoding does (a chunked body is counted as it arrives).
 */
function declaredLength(req: IncomingMessage): number | null {
  if (req.headers['transfer-encoding'] !== undefined) return null;
  const value = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(value) ? value : null;
}

function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  options: BodyGuardOptions,
  bytes: number,
): void {
  const requestId = requestIdFor(header(req, 'x-request-id'));
  const problem = new ApiProblem(
    'payload_too_large',
    `the request body is over ${options.maxBodyBytes} bytes`,
  );
  const text = JSON.stringify(problemBody(problem, requestId));
  res.writeHead(413, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
    connection: 'close',
  });
  // The whole answer now; the response ends (and the connection closes) once the body is read.
  res.write(text);
  options.log.info(
    { requestId, method: req.method, status: 413, bytes },
    'request body over the limit',
  );
  linger(req, res, options);
}

function linger(req: IncomingMessage, res: ServerResponse, options: BodyGuardOptions): void {
  const maxBytes = options.lingerBytes ?? 64 * 1024 * 1024;
  const idleMs = options.lingerIdleMs ?? 5_000;
  let read = 0;
  let closed = false;
  const close = (early: boolean): void => {
    if (closed) return;
    closed = true;
    clearTimeout(total);
    clearTimeout(idle);
    req.removeAllListeners('data');
    // Past a bound the client is still sending: its answer is already on the wire.
    res.end(early ? () => req.socket.destroy() : undefined);
  };
  const total = setTimeout(() => close(true), options.lingerMs ?? 30_000);
  const idle = setTimeout(() => close(true), idleMs);
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    idle.refresh();
    if (read > maxBytes) close(true);
  });
  req.once('end', () => close(false));
  req.once('close', () => (clearTimeout(total), clearTimeout(idle)));
  req.resume();
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
