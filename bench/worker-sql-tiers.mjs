// bench/worker.mjs's SQL tiers, each beside what its server does on this machine in the same run:
// PostgreSQL store + Redis queue (pgbench one-row UPDATEs, 50 clients) and SQLite store + local
// queue in one file (SQLite's own one-row commits). The peers are run by worker.mjs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { RedisStreamQueue } from '../dist/redis.js';
import { PostgresExecutionStore, PostgresFlowStore } from '../dist/postgres.js';
import { LocalQueue, SqliteExecutionStore, SqliteFlowStore } from '../dist/sqlite.js';
import { postgresUpdateRate, sqliteCommitRate } from './server-limits.mjs';
import { cleanupRedisPrefix, PG_BASE, REDIS_URL, runWorkload } from './worker-harness.mjs';

export async function postgresTier({ registry, flow, steps, count, concurrency = 50 }) {
  const schema = `bench_w_${process.pid}`;
  const prefix = `bench-wpg-${process.pid}`;
  const url = `${PG_BASE}/test`;
  try {
    const store = new PostgresExecutionStore({ connectionString: url }, { schema, poolSize: 20 });
    const flows = new PostgresFlowStore({ connectionString: url }, { schema });
    const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix, stream: `${prefix}:tasks` });
    const ours = await runWorkload({
      store,
      flows,
      queue,
      flow,
      registry,
      steps,
      count,
      concurrency,
    });
    await Promise.all([store.close(), flows.close(), queue.close()]);
    const updatesPerS = await postgresUpdateRate(url, 50);
    return { ours, updatesPerS };
  } catch (error) {
    return { error: String(error.message ?? error) };
  } finally {
    await cleanupRedisPrefix(prefix);
    await dropSchema(url, schema);
  }
}

async function dropSchema(url, schema) {
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } catch {
    // PostgreSQL down: the tier already reported its error, nothing was created.
  } finally {
    await admin.end().catch(() => undefined);
  }
}

export async function sqliteTier({ registry, flow, steps, count, concurrency = 16 }) {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-embedded-'));
  const path = join(dir, 'plaita.db');
  try {
    const store = new SqliteExecutionStore({ path });
    const flows = new SqliteFlowStore({ path });
    const queue = new LocalQueue({ path });
    const ours = await runWorkload({
      store,
      flows,
      queue,
      flow,
      registry,
      steps,
      count,
      concurrency,
    });
    await Promise.all([store.close(), flows.close(), queue.close()]);
    return { ours, concurrency, commitsPerS: sqliteCommitRate() };
  } catch (error) {
    return { error: String(error.message ?? error) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
