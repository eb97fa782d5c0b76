import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import * as postgres from '../../src/postgres.js';
import * as redis from '../../src/redis.js';
import * as sqlite from '../../src/sqlite.js';
import * as worker from '../../src/worker.js';
import * as server from '../../src/server.js';

/** The value exports docs/public-surface.md lists for the package root. */
const CONTRACT = [
  'parseFlow',
  'loadFlowFile',
  'runFlow',
  'stepFlow',
  'runStep',
  'NodeRegistry',
  'defaultRegistry',
  'defineNode',
  'encodeState',
  'decodeState',
  'MemoryExecutionStore',
  'SqliteExecutionStore',
  'PostgresExecutionStore',
  'RedisExecutionStore',
  'newExecutionState',
  'FlowError',
  'PlaitaError',
  'StateSerializationError',
  'StateTooLargeError',
  'StateCorruptError',
  'StoreUnavailableError',
  'FenceRejectedError',
  'FlowDefinitionError',
  'TerminalError',
  'RetryableError',
  'RedisStreamQueue',
  'LocalQueue',
  'FlowWorker',
  'PlaitaClient',
];

describe('package entry points', () => {
  it('the root keeps every name of the contract', () => {
    const missing = CONTRACT.filter((name) => !(name in root));
    expect(missing).toEqual([]);
  });

  it("the worker's internals are not exported", () => {
    for (const name of ['decide', 'classifyFailure', 'claimExecution'])
      expect(Object.keys(root), name).not.toContain(name);
  });

  it('each backend subpath exports the same classes as the root', () => {
    expect(sqlite.SqliteExecutionStore).toBe(root.SqliteExecutionStore);
    expect(sqlite.SqliteFlowStore).toBe(root.SqliteFlowStore);
    expect(sqlite.LocalQueue).toBe(root.LocalQueue);
    expect(postgres.PostgresExecutionStore).toBe(root.PostgresExecutionStore);
    expect(postgres.PostgresFlowStore).toBe(root.PostgresFlowStore);
    expect(redis.RedisExecutionStore).toBe(root.RedisExecutionStore);
    expect(redis.RedisFlowStore).toBe(root.RedisFlowStore);
    expect(redis.RedisStreamQueue).toBe(root.RedisStreamQueue);
    expect(worker.FlowWorker).toBe(root.FlowWorker);
    expect(worker.WorkerMetrics).toBe(root.WorkerMetrics);
    expect(worker.reapStale).toBe(root.reapStale);
    expect(typeof worker.startWorkerProcess).toBe('function');
  });

  it('plaita/server mounts the API with the control store of any backend', () => {
    expect(typeof server.createApiApp).toBe('function');
    expect(typeof server.startServerTasks).toBe('function');
    expect(typeof server.listenApiApp).toBe('function');
    // The serve lifecycle as a library (issue 30 §1): what `plaita serve` calls.
    expect(typeof server.startServe).toBe('function');
    expect(typeof server.MemoryControlStore).toBe('function');
    expect(typeof sqlite.SqliteControlStore).toBe('function');
    expect(typeof postgres.PostgresControlStore).toBe('function');
    expect(typeof redis.RedisControlStore).toBe('function');
  });

  it('package.json exports each entry point with its types', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      exports: Record<string, { types: string; import: string } | string>;
    };
    for (const [subpath, file] of Object.entries({
      '.': 'index',
      './sqlite': 'sqlite',
      './postgres': 'postgres',
      './redis': 'redis',
      './worker': 'worker',
      './server': 'server',
      './nodes': 'nodes',
    }))
      expect(pkg.exports[subpath], subpath).toEqual({
        types: `./dist/${file}.d.ts`,
        import: `./dist/${file}.js`,
      });
  });
});
