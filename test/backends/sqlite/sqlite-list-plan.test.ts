/**
 * Every list filter is served by an index on SQLite too: EXPLAIN QUERY PLAN of the exact
 * statements the store runs, on 20,000 seeded executions after ANALYZE. Each branch SEARCHes
 * its filter's index (never a SCAN of the table) and takes its order from it (no temp b-tree
 * for a single filter; several statuses re-sort only each branch's `limit + 1` rows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteExecutionStore } from '../../../src/backends/sqlite/sqlite-execution-store.js';
import {
  SELECT_EXPIRED,
  SQLITE_LIST_DIALECT,
} from '../../../src/backends/sqlite/sqlite-execution-sql.js';
import { planList } from '../../../src/store/shared/list-plan.js';
import { listSql } from '../../../src/store/sql/list-sql.js';
import { LIST_SHAPES, SEED_TARGET, SEEDED_ROWS, seedColumns } from '../support/list-shapes.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-sqlite-plan-'));
const path = join(dir, 'plaita.db');
let db: Database.Database;

beforeAll(async () => {
  const store = new SqliteExecutionStore({ path });
  await store.list(); // migrates
  await store.close();
  db = new Database(path);
  const columns = seedColumns('i', (...parts) => parts.join(' || '));
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${SEEDED_ROWS})
    INSERT INTO executions (${SEED_TARGET}) SELECT ${columns} FROM n`);
  db.exec('ANALYZE');
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite list plans', () => {
  for (const shape of LIST_SHAPES) {
    it(`${shape.name}: SEARCH using ${shape.index}, no table SCAN`, () => {
      const statement = listSql(
        planList(shape.query),
        'executions',
        Date.now(),
        SQLITE_LIST_DIALECT,
      );
      const plan = (
        db.prepare(`EXPLAIN QUERY PLAN ${statement.text}`).all(...statement.values) as {
          detail: string;
        }[]
      ).map((row) => row.detail);
      const searches = plan.filter((detail) => /^(SEARCH|SCAN) executions\b/.test(detail));
      expect(searches.length).toBe(
        Array.isArray(shape.query.status) ? shape.query.status.length : 1,
      );
      for (const search of searches)
        expect(search).toMatch(
          new RegExp(`^SEARCH executions USING INDEX ${shape.index} \\(tenant_id=\\?`),
        );
      const sorts = plan.filter((detail) => detail.includes('TEMP B-TREE'));
      // Several statuses: MERGE (UNION ALL) of one co-routine per status, each an ordered
      // SEARCH with LIMIT; SQLite re-sorts each co-routine's at most `limit + 1` rows.
      if (Array.isArray(shape.query.status)) {
        expect(plan).toContain('MERGE (UNION ALL)');
        expect(sorts.length).toBeLessThanOrEqual(shape.query.status.length);
      } else {
        expect(sorts).toEqual([]);
      }
    });
  }

  it('the sweep reads the partial expiry index, not the table', () => {
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${SELECT_EXPIRED}`).all({ now: Date.now(), limit: 500 }) as {
        detail: string;
      }[]
    ).map((r) => r.detail);
    expect(plan).toEqual([
      expect.stringMatching(
        /^SEARCH executions USING (COVERING )?INDEX executions_by_expiry \(expires_at<\?\)$/,
      ),
    ]);
  });
});
