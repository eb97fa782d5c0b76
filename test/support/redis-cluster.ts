import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { describe, it } from 'vitest';
import { freePort, startRedisServer, type PrivateRedisServer } from './redis-server.js';

const run = promisify(execFile);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A PRIVATE Redis Cluster on loopback for tests: 3 masters + 3 replicas, six `redis-server
 * --cluster-enabled yes` processes (each its own free port, bus port and temp dir, through
 * startRedisServer), joined by `redis-cli --cluster create … --cluster-replicas 1
 * --cluster-yes`. Resolves once every node reports `cluster_state:ok` and every replica's link
 * to its master is up. `stop()` tears every process and dir down (idempotent); the exit hook of
 * redis-server.ts kills anything left if a test crashes.
 */
export interface LocalRedisCluster {
  /** `redis+cluster://127.0.0.1:<p1>,…` (every node, masters first). */
  readonly url: string;
  readonly nodes: readonly PrivateRedisServer[];
  /** Current masters by port, with their slot ranges and replicas (from CLUSTER NODES). */
  masters(): Promise<ClusterMaster[]>;
  /** A plain single-node admin client to one node (the caller disconnects it). */
  admin(port: number): Redis;
  /** Resolves once every live node reports cluster_state:ok and agrees on `masters` count. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterMaster {
  port: number;
  id: string;
  slots: [number, number][];
  replicaPorts: number[];
}

export interface RedisClusterOptions {
  /** `cluster-node-timeout` ms: how fast a dead master is failed over (default 1000). */
  nodeTimeoutMs?: number;
}

export async function startRedisCluster(
  options: RedisClusterOptions = {},
): Promise<LocalRedisCluster> {
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const nodes: PrivateRedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    const busPorts = await distinctFreePorts(6);
    const started = await Promise.allSettled(
      busPorts.map((busPort) =>
        // prettier-ignore
        startRedisServer({
          persistence: 'none',
          args: [
            '--cluster-enabled', 'yes',
            '--cluster-config-file', 'nodes.conf',
            '--cluster-node-timeout', String(nodeTimeoutMs),
            // Set explicitly: port + 10000 (Redis's default) may be taken or out of range.
            '--cluster-port', String(busPort),
            // A replica with a stale link still takes over at once: the tests kill masters.
            '--cluster-replica-validity-factor', '0',
            // Replicas sync at once (the default waits 5 s for more replicas to join a transfer).
            '--repl-diskless-sync-delay', '0',
          ],
        }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') nodes.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'],
      { timeout: 30_000 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const cluster: LocalRedisCluster = {
    url: `redis+cluster://${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}`,
    nodes,
    admin: (port) => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }),
    masters: () => readMasters(nodes),
    waitHealthy: (timeoutMs = 20_000) => waitHealthy(nodes, timeoutMs),
    stop,
  };
  try {
    await cluster.waitHealthy();
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

/** `count` free loopback ports, all different (probed one after another, kept apart). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function withNode<T>(port: number, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 2000,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

async function readMasters(nodes: readonly PrivateRedisServer[]): Promise<ClusterMaster[]> {
  const live = nodes.find((node) => node.running);
  if (!live) throw new Error('no cluster node is running');
  const text = await withNode(live.port, (r) => r.call('CLUSTER', 'NODES') as Promise<string>);
  const lines = text
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
  const portOf = (address: string): number => Number(/:(\d+)/.exec(address)?.[1]);
  const masters = lines
    .filter((f) => f[2]!.includes('master') && !f[2]!.includes('fail') && f.length > 8)
    .map((f) => ({
      port: portOf(f[1]!),
      id: f[0]!,
      slots: f
        .slice(8)
        .filter((range) => !range.startsWith('['))
        .map((range): [number, number] => {
          const [low, high] = range.split('-').map(Number);
          return [low!, high ?? low!];
        }),
      replicaPorts: [] as number[],
    }));
  for (const f of lines) {
    const master = masters.find((m) => m.id === f[3]);
    if (f[2]!.includes('slave') && !f[2]!.includes('fail') && master)
      master.replicaPorts.push(portOf(f[1]!));
  }
  return masters.sort((a, b) => a.slots[0]![0] - b.slots[0]![0]);
}

async function waitHealthy(nodes: readonly PrivateRedisServer[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const live = nodes.filter((node) => node.running);
      const infos = await Promise.all(
        live.map((node) =>
          withNode(node.port, async (r) => ({
            cluster: (await r.call('CLUSTER', 'INFO')) as string,
            replication: await r.info('replication'),
          })),
        ),
      );
      const ok = infos.every(
        ({ cluster, replication }) =>
          cluster.includes('cluster_state:ok') &&
          (!replication.includes('role:slave') || replication.includes('master_link_status:up')),
      );
      const masters = (await readMasters(nodes)).filter((m) => m.slots.length > 0);
      const covered = masters.reduce(
        (sum, m) => sum + m.slots.reduce((n, [low, high]) => n + high - low + 1, 0),
        0,
      );
      if (ok && covered === 16384) return;
      last = `state ok: ${ok}, slots covered: ${covered}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`the test cluster did not become healthy within ${timeoutMs} ms (${last})`);
}

/**
 * Cluster tests need the `redis-server` and `redis-cli` binaries (not a running service).
 * Missing: the tests skip locally with a one-line reason, and FAIL when CI=true.
 */
export interface ClusterGate {
  available: boolean;
  describe: (title: string, body: () => void) => void;
}

export function redisClusterGate(): ClusterGate {
  const missing = ['redis-server', 'redis-cli'].filter(
    (binary) => spawnSync(binary, ['--version'], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length === 0)
    return { available: true, describe: (title, body) => describe(title, body) };
  const reason = `${missing.join(' and ')} not installed (needed to start a local Redis Cluster)`;
  if (process.env.CI === 'true' || process.env.CI === '1')
    return {
      available: false,
      describe: (title) =>
        describe(title, () => {
          it('needs a local Redis Cluster', () => {
            throw new Error(`${reason} (CI=true: services are required)`);
          });
        }),
    };
  console.warn(`skipping Redis Cluster tests: ${reason}`);
  return { available: false, describe: (title, body) => describe.skip(title, body) };
}
