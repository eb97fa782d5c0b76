import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A real `plaita serve` child process on a temporary SQLite file (docs/http-api.md §1). */
export interface ConsoleServer {
  url: string;
  /** The admin key the first start printed. */
  key: string;
  dbPath: string;
  /** Calls the API with the admin key; parses JSON answers. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
  close(): Promise<void>;
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `node dist/cli.js serve` and waits until it prints its URL and first admin key. */
export async function startConsoleServer(extraArgs: string[] = []): Promise<ConsoleServer> {
  if (!existsSync(join(ROOT, 'dist/console/index.html')))
    throw new Error('dist/console is missing: run `npm run build` before the console tests');
  const dir = mkdtempSync(join(tmpdir(), 'plaita-console-'));
  const dbPath = join(dir, 'plaita.db');
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'dist/cli.js'),
      'serve',
      '--store',
      `sqlite:${dbPath}`,
      '--port',
      String(port),
      '--rate-limit',
      '0',
      ...extraArgs,
    ],
    { cwd: dir, env: { ...process.env, PLAITA_LOG_LEVEL: 'silent' }, stdio: 'pipe' },
  );
  let closed = false;
  child.once('exit', () => (closed = true));
  const { url, key } = await banner(child);
  const api = async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  };
  const close = async () => {
    if (!closed) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { url, key, dbPath, api, close };
}

/** Reads stderr until both the key and the "serving" line have appeared. */
function banner(child: ChildProcess): Promise<{ url: string; key: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error('plaita serve did not start in 20 s')), 20_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${text}`));
    };
    const read = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const key = /\b(plt_[A-Za-z0-9_-]+)/.exec(text)?.[1];
      const url = /serving (http:\/\/[^\s]+)/.exec(text)?.[1];
      if (key && url) {
        clearTimeout(timer);
        child.stderr?.off('data', read);
        child.stdout?.off('data', read);
        child.stderr?.resume();
        child.stdout?.resume();
        resolve({ url: url.replace(/\/$/, ''), key });
      }
    };
    child.stderr?.on('data', read);
    child.stdout?.on('data', read);
    child.once('exit', (code) => fail(new Error(`plaita serve exited with ${String(code)}`)));
  });
}
