import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteFile } from '../../../src/backends/sqlite/open-sqlite-file.js';
import { StoreConfigurationError } from '../../../src/errors/store-errors.js';
import { LocalQueue } from '../../../src/backends/sqlite/queue/local-queue.js';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const junk = join(dir, 'junk.db');
writeFileSync(junk, 'this is not a SQLite database, just text '.repeat(100));

describe('openSqliteFile: the one SQLite opener of the stores and the LocalQueue', () => {
  it('sets WAL, synchronous NORMAL, the busy timeout and in-memory temp b-trees, then migrates', () => {
    const migrated: string[] = [];
    const db = openSqliteFile(join(dir, 'a.db'), {
      busyTimeoutMs: 1234,
      migrate: (connection) => migrated.push(connection.name),
    });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
      expect(migrated).toEqual([join(dir, 'a.db')]);
    } finally {
      db.close();
    }
  });

  it('a file that is not a database is a StoreConfigurationError naming the path', () => {
    expect(() => openSqliteFile(junk, { busyTimeoutMs: 100 })).toThrow(StoreConfigurationError);
    expect(() => openSqliteFile(junk, { busyTimeoutMs: 100 })).toThrow(
      `${junk} is not a SQLite database`,
    );
  });

  it('the LocalQueue and the store report that file alike', async () => {
    expect(() => new LocalQueue({ path: junk })).toThrow(
      expect.objectContaining({
        code: 'store_misconfigured',
        message: expect.stringContaining(junk),
      }),
    );
    const store = new SqliteExecutionStore({ path: junk });
    await expect(store.load('e1')).rejects.toMatchObject({
      code: 'store_misconfigured',
      message: expect.stringContaining(junk),
    });
    await store.close();
  });
});
