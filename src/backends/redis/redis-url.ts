import { StoreConfigurationError } from '../../errors/store-errors.js';

/** A Redis Cluster reached through some of its nodes (ioredis discovers the rest). */
export interface ClusterUrl {
  /** At least one `host:port`; any live node of the cluster is enough to start. */
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
}

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\//i;

/** True for `redis+cluster://…` and `rediss+cluster://…` (TLS). */
export function isClusterUrl(url: string): boolean {
  return CLUSTER_SCHEME.test(url.trim());
}

/**
 * `redis+cluster://[user:password@]host1:7000,host2:7001[,…]` → the startup nodes and the
 * credentials every node shares. `rediss+cluster://` connects with TLS. A missing port is 6379.
 * Anything else is StoreConfigurationError naming the URL (passwords masked).
 */
export function parseClusterUrl(url: string): ClusterUrl {
  const trimmed = url.trim();
  const scheme = CLUSTER_SCHEME.exec(trimmed);
  if (!scheme) throw invalid(url, 'it does not start with redis+cluster:// or rediss+cluster://');
  let rest = trimmed.slice(scheme[0].length).replace(/\/(\d+)?$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const credentials = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = credentials.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? credentials : credentials.slice(0, colon));
    const secret = colon < 0 ? '' : decodeURIComponent(credentials.slice(colon + 1));
    if (colon < 0) password = user;
    else {
      if (user !== '') username = user;
      password = secret;
    }
  }
  const nodes = rest.split(',').map((part) => parseNode(part.trim(), url));
  if (nodes.length === 0 || rest.trim() === '') throw invalid(url, 'it names no node');
  return {
    nodes,
    ...(username === undefined ? {} : { username }),
    ...(password === undefined || password === '' ? {} : { password }),
    tls: scheme[1]!.toLowerCase() === 'rediss',
  };
}

/**
 * `redis://[user:password@]host[:port][/db]` (or `rediss://`) → the database index, 0 when
 * none. ioredis would take a port or database it cannot read as NaN and fail later with a
 * stack trace (or, for a database the server lacks, quietly use database 0): anything else
 * is StoreConfigurationError naming the URL (passwords masked).
 */
export function parseRedisUrl(url: string): { db: number } {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw invalid(url, 'it is not a URL (a port must be a number)');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw invalid(url, 'it does not start with redis:// or rediss://');
  if (parsed.hostname === '') throw invalid(url, 'it names no host');
  const path = parsed.pathname.replace(/^\//, '');
  if (path === '') return { db: 0 };
  if (!/^\d{1,6}$/.test(path)) throw invalid(url, `the database "${path}" is not a number`);
  return { db: Number(path) };
}

/**
 * `PLAITA_REDIS_CLUSTER` accepts a full `redis+cluster://` URL or just `host1:7000,host2:7001`.
 */
export function clusterUrlFromEnv(value: string): string {
  const trimmed = value.trim();
  return isClusterUrl(trimmed) ? trimmed : `redis+cluster://${trimmed}`;
}

function parseNode(part: string, url: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d+))?$/.exec(part);
  if (!match) throw invalid(url, `"${part}" is not host:port`);
  const port = match[2] === undefined ? 6379 : Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw invalid(url, `"${part}" has no valid port`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function invalid(url: string, why: string): StoreConfigurationError {
  const masked = url.replace(/\/\/[^@/]*@/, '//***@');
  const kind = isClusterUrl(url) ? 'Redis Cluster URL' : 'Redis URL';
  return new StoreConfigurationError(`invalid ${kind} ${masked}: ${why}`);
}
