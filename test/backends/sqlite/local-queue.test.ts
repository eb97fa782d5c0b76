import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  StoreConfigurationError,
  StoreUnavailableError,
} from '../../../src/errors/store-errors.js';
import {
  LocalQueue,
  type LocalQueueOptions,
} from '../../../src/backends/sqlite/queue/local-queue.js';
import type { TaskMessage } from '../../../src/queue/task-message.js';
import { describeTaskQueue } from '../../contracts/task-queue.contract.js';

const run = (executionId: string): TaskMessage => ({
  v: 1,
  kind: 'run',
  executionId,
  tenantId: 't1',
});
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeTaskQueue('LocalQueue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-queue-'));
  const path = join(dir, '.plaita', 'plaita.db');
  const queues: LocalQueue[] = [];
  // Opened first so the tables exist for the raw connection below.
  queues.push(new LocalQueue({ path }));
  const raw = new Database(path);
  return Promise.resolve({
    // Every queue object gets its own connection to the file, like separate worker processes.
    open: (options = {}) => {
      const queue = new LocalQueue({ path }, options);
      queues.push(queue);
      return queue;
    },
    injectRaw: (payload) => {
      const now = Date.now();
      raw
        .prepare(
          "INSERT INTO queue_messages (queue, payload, available_at, enqueued_at) VALUES ('tasks', ?, ?, ?)",
        )
        .run(payload, now, now);
      return Promise.resolve();
    },
    storedMessages: () =>
      Promise.resolve(
        (raw.prepare('SELECT COUNT(*) AS n FROM queue_messages').get() as { n: number }).n,
      ),
    close: async () => {
      await Promise.all(queues.map((q) => q.close()));
      raw.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});

describeTaskQueue('LocalQueue (:memory:, one shared connection)', () => {
  const db = new Database(':memory:');
  const queues: LocalQueue[] = [];
  return Promise.resolve({
    open: (options = {}) => {
      const queue = new LocalQueue({ db }, options);
      queues.push(queue);
      return queue;
    },
    injectRaw: (payload) => {
      const now = Date.now();
      db.prepare(
        "INSERT INTO queue_messages (queue, payload, available_at, enqueued_at) VALUES ('tasks', ?, ?, ?)",
      ).run(payload, now, now);
      return Promise.resolve();
    },
    storedMessages: () =>
      Promise.resolve(
        (db.prepare('SELECT COUNT(*) AS n FROM queue_messages').get() as { n: number }).n,
      ),
    close: async () => {
      await Promise.all(queues.map((q) => q.close()));
      db.close();
    },
  });
});

describe('LocalQueue on SQLite', () => {
  let dir: string;
  let path: string;
  const opened: { close(): unknown }[] = [];
  const open = (options: LocalQueueOptions = {}): LocalQueue => {
    const queue = new LocalQueue({ path }, options);
    opened.push(queue);
    return queue;
  };
  const connect = (): Database.Database => {
    const db = new Database(path);
    opened.push(db);
    return db;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaita-queue-'));
    path = join(dir, 'plaita.db');
  });
  afterEach(async () => {
    for (const handle of opened.splice(0).reverse()) await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('versions its tables in queue_meta and leaves user_version to the execution store', () => {
    open();
    open(); // a second open finds the schema current
    const db = connect();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare("SELECT value FROM queue_meta WHERE key = 'schema_version'").get()).toEqual({
      value: '1',
    });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all();
    expect(tables.map((t) => (t as { name: string }).name)).toEqual([
      'queue_dead_letters',
      'queue_messages',
      'queue_meta',
    ]);
  });

  it('refuses a file whose queue tables are newer than this code', () => {
    open();
    connect().prepare("UPDATE queue_meta SET value = '99' WHERE key = 'schema_version'").run();
    expect(() => open()).toThrow(/schema version 99/);
    expect(() => open()).toThrow(StoreConfigurationError); // configuration: never redelivered
  });

  it('opens a migrated file while another connection holds the write lock (a worker starts)', async () => {
    open();
    const locker = connect();
    locker.exec('BEGIN IMMEDIATE');
    try {
      const queue = open({ busyTimeoutMs: 50 });
      expect(await queue.stats()).toMatchObject({ ready: 0 });
    } finally {
      locker.exec('COMMIT');
    }
  });

  it('persists messages across reopen (a restarted process)', async () => {
    const first = open();
    await first.enqueue(run('e1'));
    await first.enqueue(run('t'), { delayMs: 100, dedupId: 'd1' });
    await first.close();
    const second = open();
    await sleep(150);
    const got = await second.receive('c1', { max: 5, blockMs: 0 });
    expect(got.map((d) => (d.parsed.ok ? d.parsed.message.executionId : null))).toEqual([
      'e1',
      't',
    ]);
  });

  it('sees a row written by another connection (another process) within the poll interval', async () => {
    const queue = open({ pollIntervalMs: 20 });
    const other = connect();
    const receiving = queue.receive('c1', { max: 1, blockMs: 5000 });
    await sleep(100);
    const now = Date.now();
    const writtenAt = Date.now();
    other
      .prepare(
        "INSERT INTO queue_messages (queue, payload, available_at, enqueued_at) VALUES ('tasks', ?, ?, ?)",
      )
      .run(JSON.stringify(run('cli')), now, now);
    const [d] = await receiving;
    expect(d!.parsed).toMatchObject({ ok: true, message: { executionId: 'cli' } });
    expect(Date.now() - writtenAt).toBeLessThan(500);
  });

  it('keeps named queues in one file apart', async () => {
    const a = open({ name: 'a' });
    const b = open({ name: 'b' });
    await a.enqueue(run('for-a'));
    expect(await b.receive('c1', { max: 5, blockMs: 0 })).toEqual([]);
    expect(await b.stats()).toMatchObject({ ready: 0 });
    expect(await a.receive('c1', { max: 5, blockMs: 0 })).toHaveLength(1);
  });

  it('rejects with StoreUnavailableError while another connection holds the write lock', async () => {
    const queue = open({ busyTimeoutMs: 50 });
    const locker = connect();
    locker.exec('BEGIN IMMEDIATE');
    try {
      await expect(queue.enqueue(run('e1'))).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      locker.exec('COMMIT');
    }
    await queue.enqueue(run('e1'));
    expect(await queue.receive('c1', { max: 1, blockMs: 0 })).toHaveLength(1);
  });

  it('leaves a borrowed connection open on close', async () => {
    const db = connect();
    const queue = new LocalQueue({ db });
    await queue.enqueue(run('e1'));
    await queue.close();
    expect(db.open).toBe(true);
    await expect(queue.enqueue(run('e2'))).rejects.toThrow(/closed/);
  });
});
