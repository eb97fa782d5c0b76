import { createConnection } from 'node:net';
import { describe, it } from 'vitest';

/**
 * Tests that need Redis or PostgreSQL: in CI (`CI=true`) a missing service FAILS the suite;
 * elsewhere the tests skip with a one-line reason.
 */
export const REDIS_URL = process.env.PLAITA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL =
  process.env.PLAITA_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const inCi = process.env.CI === 'true' || process.env.CI === '1';

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || defaultPort) });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface ServiceGate {
  available: boolean;
  /** `it` when the service is up; otherwise `it.skip` locally, and a failing test in CI. */
  it: typeof it;
  /** `describe` when the service is up; otherwise skipped locally, one failing test in CI. */
  describe: (title: string, body: () => void) => void;
}

async function gate(name: string, url: string, port: number): Promise<ServiceGate> {
  const available = await reachable(url, port);
  if (available) return { available, it, describe: (title, body) => describe(title, body) };
  const reason = `${name} is not reachable at ${url}`;
  if (inCi) {
    const fail = (title: string): void => {
      it(title, () => {
        throw new Error(`${reason} (CI=true: services are required)`);
      });
    };
    return {
      available,
      it: fail as unknown as typeof it,
      describe: (title) => describe(title, () => fail(`${title}: ${name} required`)),
    };
  }
  console.warn(`skipping ${name} tests: ${reason}`);
  return {
    available,
    it: it.skip as unknown as typeof it,
    describe: (title, body) => describe.skip(title, body),
  };
}

export const redisGate = (): Promise<ServiceGate> => gate('Redis', REDIS_URL, 6379);
export const postgresGate = (): Promise<ServiceGate> => gate('PostgreSQL', POSTGRES_URL, 5432);

/** A unique key prefix / schema name per test run, so tests never collide or FLUSHALL. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
