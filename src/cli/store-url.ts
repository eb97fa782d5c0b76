import { clusterUrlFromEnv } from '../backends/redis/redis-url.js';
import { CliError, EXIT } from './exit-codes.js';

/**
 * docs/public-surface.md store URLs: `memory`, `sqlite:<path>`, `postgres://…`, `redis://…`,
 * and `redis+cluster://host1:7000,host2:7001` (`rediss+cluster://` with TLS) for Redis Cluster.
 */
export type StoreTarget =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string }
  | { kind: 'redis'; url: string };

export const DEFAULT_STORE = 'sqlite:./.plaita/plaita.db';

/** The store a command uses: its --store, else PLAITA_STORE (or PLAITA_DATABASE_URL), else the default file. */
export function storeTarget(flag: string | undefined): StoreTarget {
  return parseStoreUrl(flag ?? process.env.PLAITA_STORE ?? process.env.PLAITA_DATABASE_URL);
}

export function parseStoreUrl(raw: string | undefined): StoreTarget {
  const url = (raw ?? '').trim() || DEFAULT_STORE;
  if (url === 'memory') return { kind: 'memory' };
  if (url.startsWith('sqlite:'))
    return {
      kind: 'sqlite',
      path: url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') || './.plaita/plaita.db',
    };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  if (/^rediss?(\+cluster)?:\/\//.test(url)) return { kind: 'redis', url };
  if (/\.(db|sqlite3?)$/.test(url)) return { kind: 'sqlite', path: url };
  throw new CliError(
    `--store "${url}" is not a store URL: use memory, sqlite:PATH, postgres://…, redis://… or redis+cluster://…`,
    EXIT.usage,
  );
}

/** The `--store` flag the user would have to repeat, or nothing for the default. */
export function storeFlag(raw: string | undefined): string {
  return raw && raw.trim() && raw.trim() !== DEFAULT_STORE
    ? ` --store ${shellQuote(raw.trim())}`
    : '';
}

export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The Redis URL of the task queue: `--redis-url`, else `PLAITA_REDIS_URL`, else
 * `PLAITA_REDIS_CLUSTER` (a `redis+cluster://…` URL or just `host1:7000,host2:7001`).
 */
export function queueRedisUrl(flag: string | undefined): string | undefined {
  if (flag) return flag;
  if (process.env.PLAITA_REDIS_URL) return process.env.PLAITA_REDIS_URL;
  const cluster = process.env.PLAITA_REDIS_CLUSTER?.trim();
  return cluster ? clusterUrlFromEnv(cluster) : undefined;
}
