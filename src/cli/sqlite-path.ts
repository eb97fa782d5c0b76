import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, EXIT } from './exit-codes.js';

/**
 * Readies `path` for a SQLite file: its folder is created; a directory, or a path the file
 * system refuses, is bad input (exit 2) naming the path. Whether an existing file is a
 * database is the driver's to say (classifySqliteOpenError).
 */
export function prepareSqlitePath(path: string): void {
  if (path === ':memory:' || path === '') return;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
    if (!isDirectory) makeFolders(dirname(path));
  } catch (error) {
    throw new CliError(
      `cannot use ${path} as a SQLite database file: ${(error as Error).message}`,
      EXIT.usage,
    );
  }
  if (isDirectory)
    throw new CliError(
      `${path} is a directory, not a SQLite database file (sqlite:PATH names a file)`,
      EXIT.usage,
    );
}

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdir spins for ever on a file system that
 * answers oddly (a folder under /proc), where this fails on the first level it cannot make.
 */
function makeFolders(folder: string): void {
  if (statSync(folder, { throwIfNoEntry: false }) !== undefined) return;
  const parent = dirname(folder);
  if (parent !== folder) makeFolders(parent);
  mkdirSync(folder);
}
