import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { ControlKey } from '../../../src/store/control-store.js';
import { SqliteControlStore } from '../../../src/backends/sqlite/sqlite-control-store.js';
import { SqliteDatabase } from '../../../src/backends/sqlite/sqlite-database.js';
import { describeControlStore } from '../../contracts/control-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-control-'));
const path = join(dir, 'plaita.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another connection holds the write lock: the store's next write waits out its busy timeout. */
function holdWriteLock(): Promise<() => Promise<void>> {
  const other = new Database(path);
  other.exec('BEGIN EXCLUSIVE');
  return Promise.resolve(() => {
    other.exec('ROLLBACK');
    other.close();
    return Promise.resolve();
  });
}

// Every store of the suite opens the same real file, as separate connections.
describeControlStore('sqlite', (options) => new SqliteControlStore({ path, ...options }), {
  sharedBackend: true,
  outage: holdWriteLock,
});

describe('SqliteControlStore', () => {
  const key: ControlKey = { collection: 'settings', tenant: '*', id: 'borrowed' };

  it('writes made together: one that fills the disk fails alone, and nothing is half committed', async () => {
    const full = join(dir, 'full.db');
    const database = new SqliteDatabase(full, 5000);
    const store = new SqliteControlStore({ database });
    try {
      await store.put({ ...key, id: 'warm' }, 'x'); // migrated and opened
      // A tiny file limit: the big write hits SQLITE_FULL, which ends SQLite's transaction.
      const pages = await database.use((db) => db.pragma('page_count', { simple: true }) as number);
      await database.use((db) => db.pragma(`max_page_count = ${pages + 2}`));
      const settled = await Promise.allSettled([
        store.put({ ...key, id: 'a' }, 'small'),
        store.put({ ...key, id: 'big' }, 'y'.repeat(64 * 1024)),
        store.put({ ...key, id: 'c' }, 'small'),
      ]);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await store.get({ ...key, id: 'a' }))?.doc).toBe('small');
      expect(await store.get({ ...key, id: 'big' })).toBeNull();
      expect((await store.get({ ...key, id: 'c' }))?.doc).toBe('small');
    } finally {
      database.close();
    }
  });

  it('a borrowed SqliteDatabase is shared, and left open by close', async () => {
    const database = new SqliteDatabase(path, 5000);
    const first = new SqliteControlStore({ database });
    expect(await first.put(key, 'one')).toBe(1);
    await first.close();
    const second = new SqliteControlStore({ database });
    expect(await second.get(key)).toMatchObject({ version: 1, doc: 'one' });
    await second.close();
    database.close();
  });

  it('keys no backend can store unchanged: writes throw RangeError, reads find nothing', async () => {
    const store = new SqliteControlStore({ path });
    for (const id of ['a\u0000b', 'lone \ud800']) {
      const bad: ControlKey = { collection: 'settings', tenant: '*', id };
      await expect(store.create(bad, 1)).rejects.toBeInstanceOf(RangeError);
      await expect(store.put(bad, 1)).rejects.toBeInstanceOf(RangeError);
      expect(await store.get(bad)).toBeNull();
      expect(await store.replace(bad, 1, 1)).toBe(false);
      expect(await store.take(bad)).toBeNull();
    }
    await expect(store.create(key, 1, { ttlMs: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(store.create(key, undefined)).rejects.toBeInstanceOf(TypeError);
    await store.close();
  });
});
