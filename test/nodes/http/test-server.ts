import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Resolves when the client's socket closes (an aborted request closes it early). */
  closed: Promise<void>;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

/** A real loopback HTTP server that records every request; tests route by path. */
export class TestServer {
  readonly requests: SeenRequest[] = [];
  #routes = new Map<string, Handler>();
  #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<TestServer> {
    const server = createServer();
    const test = new TestServer(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => test.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return test;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port><path>`, or with another host name for the same server. */
  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  route(path: string, handler: Handler): void {
    this.#routes.set(path, handler);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        closed,
      };
      this.requests.push(seen);
      const handler = this.#routes.get(new URL(seen.url, 'http://x').pathname);
      if (handler) handler(seen, res);
      else sendJson(res, 404, { error: 'no route' });
    });
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

export function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location });
  res.end('redirecting');
}
