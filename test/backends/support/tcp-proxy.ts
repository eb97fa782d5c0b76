import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'blackhole';

/**
 * A loopback TCP proxy in front of a real server, to cut a store off without touching the
 * server: `dropConnections` cuts every open connection, `stop` makes the port refuse new
 * ones (server down), `restart` listens again on the same port (server back), `freeze` stops
 * moving bytes on open connections (a network stall), and `blackhole` mode accepts connections
 * but never answers.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  mode: ProxyMode = 'forward';

  private constructor(
    private readonly target: { host: string; port: number },
    public port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.listen();
    return proxy;
  }

  get url(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** `reset` sends RST (the client sees ECONNRESET); `close` ends them cleanly (FIN, no error code). */
  dropConnections(how: 'reset' | 'close' = 'reset'): void {
    for (const socket of this.sockets) {
      if (how === 'reset') socket.resetAndDestroy();
      else socket.destroy();
    }
    this.sockets.clear();
  }

  freeze(frozen: boolean): void {
    this.frozen = frozen;
    for (const socket of this.sockets) {
      if (frozen) socket.pause();
      else socket.resume();
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port (no-op when listening). */
  restart(): Promise<void> {
    return this.server ? Promise.resolve() : this.listen();
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'blackhole') return;
    const upstream = createConnection(this.target);
    this.track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.frozen) {
      client.pause();
      upstream.pause();
    }
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }
}
