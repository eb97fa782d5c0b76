import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PRIVATE `redis-server` for tests that must stop, kill, pause or restart Redis: its own
 * free loopback port and temporary `--dir`, controlled only through its own pid. The shared
 * server on 6379 is never touched.
 *
 * Lifecycle: `kill()` (or `pause()`) takes it down and keeps its data; `restart()` brings it
 * back on the same port and dir; `stop()` is the final teardown (process and dir gone) and is
 * idempotent — call it in `afterAll`/`afterEach`. Servers still alive when the test process
 * exits are SIGKILLed by an exit hook, so a failing test cannot leak one.
 */
export interface PrivateRedisServer {
  readonly url: string;
  readonly port: number;
  /** The temporary data directory (AOF lives in `appendonlydir/` under it). */
  readonly dir: string;
  /** The current process id; undefined while the server is down. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Final teardown: SIGTERM (SIGKILL after 5 s), wait for the exit, remove the dir. Idempotent. */
  stop(): Promise<void>;
  /** Abrupt death (default SIGKILL), waited for; data in `dir` is kept for `restart()`. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port and dir (stopping it gracefully first if up); resolves once PING answers PONG. */
  restart(): Promise<void>;
  /** SIGSTOP: the port still accepts connections but nothing is answered (a blackholed server). */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
}

export interface RedisServerOptions {
  /** `aof` (default): `--appendonly yes --appendfsync always`, so a SIGKILL loses nothing. */
  persistence?: 'aof' | 'none';
  /** Extra `redis-server` arguments, e.g. `['--maxmemory', '10mb']`. */
  args?: readonly string[];
  /** How long to wait for PONG after spawning (default 10 s). */
  readyTimeoutMs?: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort for a test that forgot stop() or crashed: never leave a server behind.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export async function startRedisServer(
  options: RedisServerOptions = {},
): Promise<PrivateRedisServer> {
  installExitHook();
  const dir = mkdtempSync(join(tmpdir(), 'plaita-redis-'));
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  // prettier-ignore
  const argsFor = (port: number): string[] => [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--save', '',
    '--logfile', '',
    '--daemonize', 'no',
    '--enable-debug-command', 'local',
    ...(options.persistence === 'none' ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always']),
    ...(options.args ?? []),
  ];

  let port = 0;
  let proc: RedisProcess | undefined;
  // Another process may grab the free port between our probe and the server's bind: retry.
  for (let attempt = 1; proc === undefined; attempt++) {
    port = await freePort();
    try {
      proc = await RedisProcess.spawn(argsFor(port), port, readyTimeoutMs);
    } catch (error) {
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  let current: RedisProcess | undefined = proc;
  let removed = false;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    get pid() {
      return current?.running ? current.pid : undefined;
    },
    get running() {
      return current?.running ?? false;
    },
    async stop() {
      await current?.terminate();
      current = undefined;
      if (!removed) rmSync(dir, { recursive: true, force: true });
      removed = true;
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      await current?.kill(signal);
    },
    async restart() {
      if (removed) throw new Error('restart() after stop(): the server and its data are gone');
      await current?.terminate();
      current = await RedisProcess.spawn(argsFor(port), port, readyTimeoutMs);
    },
    pause() {
      current?.signal('SIGSTOP');
    },
    resume() {
      current?.signal('SIGCONT');
    },
  };
}

/** One spawned redis-server process. */
class RedisProcess {
  #exited: Promise<void>;
  #running = true;
  #paused = false;
  #log = '';

  private constructor(private readonly child: ChildProcess) {
    live.add(child);
    this.#exited = new Promise((resolve) => {
      const finish = (): void => {
        this.#running = false;
        live.delete(child);
        resolve();
      };
      child.once('exit', finish);
      // A spawn failure (redis-server not installed) emits 'error' and never 'exit'.
      child.once('error', () => {
        if (child.pid === undefined) finish();
      });
    });
    // Keep the pipes drained (a full pipe would block the server) and the tail for errors.
    const keep = (chunk: Buffer): void => {
      this.#log = (this.#log + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  static async spawn(args: string[], port: number, readyTimeoutMs: number): Promise<RedisProcess> {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const proc = new RedisProcess(child);
    const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
    spawnError.catch(() => undefined); // observed through the race below; never unhandled
    try {
      await Promise.race([proc.#waitForPong(port, readyTimeoutMs), spawnError]);
    } catch (error) {
      await proc.kill('SIGKILL');
      throw new Error(
        `redis-server on port ${port} did not start: ${(error as Error).message}\n${proc.#log}`,
        { cause: error },
      );
    }
    return proc;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.#running;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.#running) return;
    this.child.kill(signal);
    if (signal === 'SIGSTOP') this.#paused = true;
    if (signal === 'SIGCONT') this.#paused = false;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (!this.#running) return;
    this.child.kill(signal);
    // A stopped process only acts on SIGKILL; let it see any other signal.
    if (this.#paused && signal !== 'SIGKILL') this.signal('SIGCONT');
    await this.#exited;
  }

  /** SIGTERM (a clean shutdown), SIGKILL if it has not exited within 5 s. */
  async terminate(): Promise<void> {
    if (!this.#running) return;
    if (this.#paused) this.signal('SIGCONT');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.#exited;
    clearTimeout(timer);
  }

  async #waitForPong(port: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      if (!this.#running) throw new Error('redis-server exited');
      last = await ping(port).catch((error: Error) => error.message);
      if (last === '+PONG') return;
      await sleep(20); // -LOADING while the AOF is replayed, or not listening yet
    }
    throw new Error(`no PONG within ${timeoutMs} ms (last: ${last})`);
  }
}

/** One raw RESP PING: the helper must not depend on the client under test. */
function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(1000, () => socket.destroy(new Error('PING timed out')));
    socket.once('error', reject);
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) {
        socket.destroy();
        resolve(reply.slice(0, reply.indexOf('\r\n')));
      }
    });
  });
}

/** A loopback port nobody listens on right now (also used by tests needing a closed port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
