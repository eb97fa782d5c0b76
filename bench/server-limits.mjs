// What the servers themselves can do on this machine, measured in the same run as our figures
// (issue 11): Redis SETs/s (redis-benchmark), PostgreSQL one-row UPDATE commits/s (pgbench with a
// one-statement script), SQLite commits/s of a one-row UPDATE with the store's own settings
// (WAL, synchronous = NORMAL). Each returns null, with nothing thrown, when it cannot run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

export function redisSetRate(redisUrl, clients = 50) {
  try {
    const url = new URL(redisUrl);
    const out = execFileSync(
      'redis-benchmark',
      [
        '-h',
        url.hostname,
        '-p',
        url.port || '6379',
        '-t',
        'set',
        '-n',
        '200000',
        '-c',
        String(clients),
        '-q',
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const match = /SET: ([\d.]+) requests per second/.exec(out);
    return match ? Math.round(Number(match[1])) : null;
  } catch {
    return null;
  }
}

/** pgbench, `clients` connections for `seconds`, each transaction one UPDATE of one of 1,000 rows. */
export async function postgresUpdateRate(databaseUrl, clients = 50, seconds = 5) {
  const table = `plaita_bench_limit_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  const dir = mkdtempSync(join(tmpdir(), 'plaita-pgbench-'));
  try {
    await admin.connect();
    await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0)`);
    await admin.query(`INSERT INTO ${table} (id) SELECT generate_series(1, 1000)`);
    const script = join(dir, 'update.sql');
    writeFileSync(
      script,
      `\\set id random(1, 1000)\nUPDATE ${table} SET v = v + 1 WHERE id = :id;\n`,
    );
    const url = new URL(databaseUrl);
    const out = execFileSync(
      'pgbench',
      [
        '-n',
        '-h',
        url.hostname,
        '-p',
        url.port || '5432',
        '-U',
        url.username || 'postgres',
        '-c',
        String(clients),
        '-j',
        '2',
        '-T',
        String(seconds),
        '-f',
        script,
        url.pathname.slice(1),
      ],
      {
        encoding: 'utf8',
        timeout: (seconds + 60) * 1000,
        env: { ...process.env, PGPASSWORD: url.password },
      },
    );
    const match = /tps = ([\d.]+)/.exec(out);
    return match ? Math.round(Number(match[1])) : null;
  } catch {
    return null;
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One-row UPDATE transactions, one after another, on a file opened as the store opens it. */
export function sqliteCommitRate(commits = 20_000) {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-limit-'));
  try {
    const db = new Database(join(dir, 'limit.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
    db.prepare('INSERT INTO t (id, v) VALUES (1, 0)').run();
    const update = db.prepare('UPDATE t SET v = v + 1 WHERE id = 1');
    const commit = db.transaction(() => update.run());
    const t0 = performance.now();
    for (let i = 0; i < commits; i++) commit.immediate();
    const perS = Math.round(commits / ((performance.now() - t0) / 1000));
    db.close();
    return perS;
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
