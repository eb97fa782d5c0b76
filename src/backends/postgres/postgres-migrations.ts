import type { PoolClient } from 'pg';
import { errorCode } from '../../errors/plaita-error.js';
import { StoreConfigurationError } from '../../errors/store-errors.js';
import { loadMigrations, type Migration } from '../migration-files.js';

/** plaita's schema (`migrations/0001_….sql`, append only), read when a store first connects. */
let migrations: Migration[] | undefined;

/** First key of the two-int advisory lock ('plai'); the second is hashtext(schema). */
const LOCK_CLASS = 0x706c6169;

/** A schema name we can quote without surprises (and that fits PostgreSQL's 63-byte limit). */
export function quoteSchema(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
    throw new RangeError(
      `invalid schema name ${JSON.stringify(schema)}: letters, digits and _ only`,
    );
  return `"${schema}"`;
}

/**
 * Brings `schema` to the latest version. Fast path: one query sees it current. Otherwise, in
 * one transaction under `pg_advisory_xact_lock` (per schema): create the schema and the
 * `schema_migrations` table if missing, apply the versions not recorded yet, record them.
 * A second process starting at the same moment waits for the lock, then finds nothing to do;
 * a crash mid-way rolls the whole migration back.
 */
export async function migrate(client: PoolClient, schema: string): Promise<void> {
  const q = quoteSchema(schema);
  migrations ??= loadMigrations(new URL('./migrations/', import.meta.url));
  const pending = migrations;
  const latest = pending.length;
  if ((await appliedVersion(client, q)) === latest) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
    // Only when missing: CREATE SCHEMA asks for the database's CREATE privilege even when the
    // schema exists, and a role given a schema of its own by a DBA usually lacks it.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
      schema,
    ]);
    if (rowCount === 0) {
      await assertUtf8(client);
      await client.query(`CREATE SCHEMA ${q}`);
    }
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${q}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const current = await appliedVersion(client, q);
    // A newer process migrated the schema (a rolling deploy): configuration, never redelivered.
    if (current > latest)
      throw new StoreConfigurationError(
        `schema ${schema} is at migration ${current}, newer than this plaita knows (${latest})`,
      );
    // pg_temp last: it is searched first when not named, and a function that pins this path
    // (save_execution) must never resolve its tables to a session's temporary ones.
    await client.query(`SET LOCAL search_path TO ${q}, pg_temp`);
    for (const migration of pending.slice(current)) {
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${q}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * plaita stores any Unicode text; a database in another encoding (LATIN1, SQL_ASCII) would
 * refuse most of it at some later save, or mangle it. Checked when the schema is made: a
 * schema that already runs on such a database is left to run as before.
 */
async function assertUtf8(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ encoding: string }>(
    "SELECT current_setting('server_encoding') AS encoding",
  );
  const encoding = rows[0]?.encoding ?? 'unknown';
  if (encoding !== 'UTF8')
    throw new StoreConfigurationError(
      `the database's encoding is ${encoding}; plaita needs UTF8 (CREATE DATABASE … ENCODING 'UTF8' TEMPLATE template0)`,
    );
}

/** The highest recorded version; 0 when the schema or the table does not exist yet. */
async function appliedVersion(client: PoolClient, q: string): Promise<number> {
  try {
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${q}.schema_migrations`,
    );
    return rows[0]?.version ?? 0;
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name: a fresh database, not a failure.
    const code = errorCode(error);
    if (code === '42P01' || code === '3F000') return 0;
    throw error;
  }
}
