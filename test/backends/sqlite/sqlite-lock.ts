import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** A child process that takes the write lock of `path` (BEGIN IMMEDIATE), says so, and holds it. */
export function lockInAnotherProcess(
  path: string,
  holdMs: number,
): Promise<{ exited: Promise<void> }> {
  const betterSqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `const D = require(${JSON.stringify(betterSqlite)}); const db = new D(${JSON.stringify(path)});
    db.exec('BEGIN IMMEDIATE'); console.log('locked'); setTimeout(() => { db.exec('ROLLBACK'); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve) => child.stdout.once('data', () => resolve({ exited })));
}
