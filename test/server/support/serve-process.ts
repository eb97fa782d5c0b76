import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../support/redis-server.js';
import { ROOT } from '../../cli/run-cli.js';

/**
 * A real `plaita serve` (or `plaita worker`) child process, as an operator starts it: the built
 * CLI, its own cwd, real flags. `adminKey` is the key the first start printed (null when the
 * store already had one). Children still alive when the test process exits are SIGKILLed.
 */
export interface PlaitaProcess {
  readonly url: string;
  readonly adminKey: string | null;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s); returns the exit code. */
  stop(): Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const ADMIN_KEY = /plt_[0-9a-f]{16}_[A-Za-z0-9_-]+/;

export async function startServe(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<PlaitaProcess> {
  // A free port can be taken by another test's server before this one listens on it (files
  // run in parallel): then another port, a few times. The first start's admin key is kept.
  let key: string | null = null;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const proc = spawnCli(['serve', '--port', String(port), ...args], options);
    try {
      await proc.until((text) => text.includes('plaita: serving'), 'serving');
    } catch (error) {
      key ??= ADMIN_KEY.exec(proc.output())?.[0] ?? null;
      if (attempt < 3 && proc.output().includes('EADDRINUSE')) continue;
      throw error;
    }
    key ??= ADMIN_KEY.exec(proc.output())?.[0] ?? null;
    return { ...proc.handle, url: `http://127.0.0.1:${port}`, adminKey: key };
  }
}

/** `plaita worker …`, ready once it logs that it runs (or after its first poll). */
export async function startWorker(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<PlaitaProcess> {
  const proc = spawnCli(['worker', ...args], {
    ...options,
    env: { PLAITA_LOG_LEVEL: 'info', ...options.env },
  });
  await proc.until((text) => /worker (started|running)|"msg":"worker/.test(text), 'worker start');
  return { ...proc.handle, url: '' };
}

function spawnCli(args: readonly string[], options: { cwd: string; env?: Record<string, string> }) {
  const child = spawn(process.execPath, [`${ROOT}dist/cli.js`, ...args], {
    cwd: options.cwd,
    env: { ...process.env, PLAITA_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const handle = {
    child,
    adminKey: null,
    output: () => text,
    async stop(): Promise<number | null> {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const until = async (ready: (text: string) => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!ready(text)) {
      if (child.exitCode !== null)
        throw new Error(`plaita ${args[0]} exited before ${what}:\n${text}`);
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`plaita ${args[0]}: no ${what} after 20 s:\n${text}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { handle, until, output: () => text };
}

/** fetch with a key and JSON; the response as is. */
export function call(
  base: string,
  path: string,
  token: string | null,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${base}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
}
