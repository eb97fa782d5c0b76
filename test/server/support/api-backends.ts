import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import { LocalQueue } from '../../../src/backends/sqlite/queue/local-queue.js';
import { RedisStreamQueue } from '../../../src/backends/redis/queue/redis-stream-queue.js';
import { PostgresControlStore } from '../../../src/backends/postgres/postgres-control-store.js';
import { PostgresExecutionStore } from '../../../src/backends/postgres/postgres-execution-store.js';
import { PostgresFlowStore } from '../../../src/backends/postgres/postgres-flow-store.js';
import { RedisControlStore } from '../../../src/backends/redis/store/redis-control-store.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../../src/backends/redis/store/redis-flow-store.js';
import { SqliteControlStore } from '../../../src/backends/sqlite/sqlite-control-store.js';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../../src/backends/sqlite/sqlite-flow-store.js';
import { dropSchema, testSchema } from '../../backends/support/postgres-schema.js';
import {
  POSTGRES_URL,
  REDIS_URL,
  postgresGate,
  redisGate,
  type ServiceGate,
  uniqueName,
} from '../../support/services.js';
import { deletePrefix } from '../../worker/support/redis-runtime.js';
import { type Backends, memoryBackends } from './api-harness.js';

/**
 * The four stores the API runs on, each isolated per test: memory; SQLite in a temp
 * file (stores and LocalQueue in one file, as `plaita serve` does); PostgreSQL in a fresh schema
 * with a Redis Streams queue of its own prefix; Redis store and queue under one unique prefix.
 * `close()` releases the connections and removes everything the backend made.
 */
export interface BackendKind {
  name: 'memory' | 'sqlite' | 'postgres+redis' | 'redis';
  /** The services it needs: absent ones skip locally (one-line reason) and fail in CI. */
  gate: (() => Promise<ServiceGate>) | null;
  open(): Backends;
}

async function postgresAndRedis(): Promise<ServiceGate> {
  const [pg, redis] = await Promise.all([postgresGate(), redisGate()]);
  return pg.available ? redis : pg;
}

export const BACKENDS: readonly BackendKind[] = [
  { name: 'memory', gate: null, open: memoryBackends },
  { name: 'sqlite', gate: null, open: sqliteBackends },
  { name: 'postgres+redis', gate: postgresAndRedis, open: postgresRedisBackends },
  { name: 'redis', gate: redisGate, open: redisBackends },
];

/** `describe` for a backend: vitest's own, or its services' gate. */
export async function describeOn(
  kind: BackendKind,
): Promise<(title: string, body: () => void) => void> {
  if (kind.gate === null) return (title, body) => describe(title, body);
  return (await kind.gate()).describe;
}

export function sqliteBackends(): Backends {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-api-sqlite-'));
  const path = join(dir, 'plaita.db');
  const store = new SqliteExecutionStore({ path });
  const flows = new SqliteFlowStore({ path });
  const control = new SqliteControlStore({ path });
  const queue = new LocalQueue({ path }, { visibilityTimeoutMs: 2000 });
  return {
    store,
    flows,
    control,
    queue,
    close: async () => {
      await queue.close();
      await Promise.all([store.close(), flows.close(), control.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Streams queue under its own prefix and stream; `cleanup` deletes its keys. */
function redisQueue(prefix: string): RedisStreamQueue {
  return new RedisStreamQueue(
    { url: REDIS_URL },
    { prefix, stream: `${prefix}:tasks`, visibilityTimeoutMs: 2000, connectTimeoutMs: 2000 },
  );
}

async function removeRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    await deletePrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

export function postgresRedisBackends(): Backends {
  const schema = testSchema('plaita_api');
  const prefix = uniqueName('api');
  const source = { connectionString: POSTGRES_URL };
  const options = { schema, applicationName: schema, connectTimeoutMs: 2000 };
  const store = new PostgresExecutionStore(source, options);
  const flows = new PostgresFlowStore(source, options);
  const control = new PostgresControlStore(source, options);
  const queue = redisQueue(prefix);
  return {
    store,
    flows,
    control,
    queue,
    close: async () => {
      await Promise.all([store.close(), flows.close(), control.close(), queue.close()]);
      await dropSchema(schema);
      await removeRedisKeys(prefix);
    },
  };
}

export function redisBackends(): Backends {
  const prefix = uniqueName('api');
  const target = { url: REDIS_URL };
  const options = { prefix, connectTimeoutMs: 2000 };
  const store = new RedisExecutionStore(target, options);
  const flows = new RedisFlowStore(target, options);
  const control = new RedisControlStore(target, options);
  const queue = redisQueue(prefix);
  return {
    store,
    flows,
    control,
    queue,
    close: async () => {
      await Promise.all([store.close(), flows.close(), control.close(), queue.close()]);
      await removeRedisKeys(prefix);
    },
  };
}
