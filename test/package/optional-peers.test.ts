import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPTIONAL_PEERS } from '../../src/util/optional-peer.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = 'test/package/fixtures/root-without-peers.mjs';
const HIDE_PEERS = './test/support/hide-optional-peers.mjs';

/** Runs the fixture against the BUILT package (dist/, through package.json `exports`). */
function report(preload: string[]): Record<string, unknown> {
  const stdout = execFileSync(process.execPath, [...preload, FIXTURE], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PLAITA_LOG_LEVEL: 'silent' },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

function missing(dependency: string, requiredBy: string): unknown {
  return {
    name: 'PeerDependencyMissingError',
    code: 'peer_dependency_missing',
    message: `${requiredBy} needs the optional peer dependency ${dependency}, which is not installed: npm install ${dependency}@${OPTIONAL_PEERS[dependency as keyof typeof OPTIONAL_PEERS]}`,
  };
}

describe('the package without its optional peers (pg, ioredis, better-sqlite3, prom-client)', () => {
  it('`plaita` imports, runs a flow and keeps executions in memory without resolving any of them', () => {
    const seen = report(['--import', HIDE_PEERS]);
    expect(seen.result).toBe('Ada');
    expect(seen.loaded).toBe('e1');
    expect(seen.peerRequests).toEqual([]);
    // A worker runs without prom-client: it records no metrics instead of failing.
    expect(seen.workerMetrics).toBeNull();
  });

  it('a backend class from the root fails when built, naming the package to install', () => {
    const seen = report(['--import', HIDE_PEERS]);
    expect(seen.SqliteExecutionStore).toEqual(missing('better-sqlite3', 'SqliteExecutionStore'));
    expect(seen.LocalQueue).toEqual(missing('better-sqlite3', 'LocalQueue'));
    expect(seen.PostgresExecutionStore).toEqual(missing('pg', 'PostgresExecutionStore'));
    expect(seen.RedisExecutionStore).toEqual(missing('ioredis', 'RedisExecutionStore'));
    expect(seen.WorkerMetrics).toEqual(missing('prom-client', 'WorkerMetrics'));
  });

  it('a backend subpath fails at import, naming the package to install', () => {
    const seen = report(['--import', HIDE_PEERS]);
    expect(seen['plaita/sqlite']).toEqual(missing('better-sqlite3', 'plaita/sqlite'));
    expect(seen['plaita/postgres']).toEqual(missing('pg', 'plaita/postgres'));
    expect(seen['plaita/redis']).toEqual(missing('ioredis', 'plaita/redis'));
  });

  it('with the peers installed the same script builds and imports everything (the preload is what hides them)', () => {
    const seen = report([]);
    expect(seen).toMatchObject({
      result: 'Ada',
      workerMetrics: 'on',
      SqliteExecutionStore: 'built',
      LocalQueue: 'built',
      PostgresExecutionStore: 'built',
      RedisExecutionStore: 'built',
      WorkerMetrics: 'built',
      'plaita/sqlite': 'imported',
      'plaita/postgres': 'imported',
      'plaita/redis': 'imported',
    });
  });

  it('the install hint names the ranges package.json declares', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(pkg.peerDependencies).toEqual(OPTIONAL_PEERS);
    for (const name of Object.keys(OPTIONAL_PEERS))
      expect(pkg.peerDependenciesMeta[name]?.optional).toBe(true);
  });
});
