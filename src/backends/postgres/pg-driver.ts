import type pg from 'pg';
import { loadOptionalPeer } from '../../util/optional-peer.js';

export type PgDriver = typeof pg;

let driver: PgDriver | undefined;

/** node-postgres, loaded on first use (an optional peer dependency). */
export function pgDriver(requiredBy = 'the PostgreSQL backend'): PgDriver {
  return (driver ??= loadOptionalPeer<PgDriver>('pg', requiredBy));
}
