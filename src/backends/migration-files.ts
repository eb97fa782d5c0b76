import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One versioned migration: `0001_executions.sql` is version 1. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/**
 * Reads the `.sql` files of a migrations folder (beside the module, copied into `dist/` by the
 * build), in version order. Versions must run 1, 2, 3… without gaps: a missing file is a
 * packaging error, caught here rather than by a half-migrated database.
 */
export function loadMigrations(folder: URL): Migration[] {
  const dir = fileURLToPath(folder);
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter((entry): entry is { file: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ file, match }) => ({
      version: Number(match[1]),
      name: match[2]!,
      sql: readFileSync(`${dir}/${file}`, 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1)
      throw new Error(
        `migrations in ${dir}: expected version ${i + 1}, found ${migration.version}`,
      );
  });
  if (migrations.length === 0) throw new Error(`no migrations found in ${dir}`);
  return migrations;
}
