import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'plaita-cli-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const echo = join(process.cwd(), 'examples/echo.json');

describe("the CLI's audit of its writes", () => {
  it('records a start, role cli; an audit that cannot be written is a warning, never a failed start', () => {
    const store = `sqlite:${join(dir, 'plaita.db')}`;
    const first = cli(['start', echo, '--input', '{"name":"a"}', '--store', store, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const { executionId } = JSON.parse(first.stdout) as { executionId: string };
    const db = new Database(join(dir, 'plaita.db'));
    try {
      const entries = db
        .prepare("SELECT doc FROM control_records WHERE collection = 'audit'")
        .all() as { doc: string }[];
      expect(entries.map((e) => JSON.parse(e.doc) as Record<string, unknown>)).toContainEqual(
        expect.objectContaining({ action: 'execution.start', target: executionId, role: 'cli' }),
      );
      // The audit log refuses writes from now on (a full disk, a revoked grant…).
      db.exec(`CREATE TRIGGER no_audit BEFORE INSERT ON control_records
        WHEN NEW.collection = 'audit' BEGIN SELECT RAISE(ABORT, 'audit refused'); END`);
    } finally {
      db.close();
    }
    const second = cli(['start', echo, '--input', '{"name":"b"}', '--store', store, '--json']);
    // The execution was started: said so, exit 0, the id printed (a retry would start another).
    expect(second.code, second.stderr).toBe(0);
    const started = JSON.parse(second.stdout) as { executionId: string };
    expect(second.stderr).toContain(
      `plaita: warning: execution.start ${started.executionId} was done, but its audit entry could not be written`,
    );
    expect(cli(['status', started.executionId, '--store', store]).code).toBe(0);
  });
});
