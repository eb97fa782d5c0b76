// npm run bench:cluster — the Redis tier on one Redis and on a 3-master Redis Cluster (issue 13),
// in one run on this machine: executions/s of the 5-node checkpointed flow, CPU per execution
// (this process — worker and client — plus every redis-server), and how the commands spread
// over the masters. On a 2-core machine a cluster cannot be faster in total; what matters is
// that the partitioned cluster costs ≤ 1.3x the CPU per execution of one Redis and that no
// master carries more than 45% of the commands.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { parseFlow } from '../dist/index.js';
import { PlaitaClient } from '../dist/client/plaita-client.js';
import { FlowWorker } from '../dist/worker/flow-worker.js';
import { RedisExecutionStore } from '../dist/store/redis/redis-execution-store.js';
import { RedisFlowStore } from '../dist/store/redis/redis-flow-store.js';
import { RedisStreamQueue } from '../dist/queue/redis-stream/redis-stream-queue.js';
import { silentLogger } from '../dist/util/logger.js';
import { chainFlowDocument } from './chain-flow.mjs';

const N = Number(process.env.BENCH_CLUSTER_EXECUTIONS ?? 2000);
const CONCURRENCY = 50;
const STEPS = 5;
const TICKS_PER_S = 100; // /proc/<pid>/stat times are in clock ticks (USER_HZ)

const flow = parseFlow(chainFlowDocument('steps5', STEPS));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const children = [];
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));

async function startServer(args) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'plaita-bench-cluster-'));
  // prettier-ignore
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--logfile', '', ...args,
  ], { stdio: 'ignore' });
  children.push(child);
  const admin = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 1 });
  admin.on('error', () => undefined); // refused until the server listens: the loop below retries
  for (let i = 0; ; i++) {
    try {
      await admin.connect();
      await admin.ping();
      break;
    } catch {
      admin.disconnect();
      if (i > 100) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { port, pid: child.pid, admin, dir, child };
}

async function startCluster() {
  const nodes = [];
  for (let i = 0; i < 6; i++) {
    const bus = await freePort();
    // prettier-ignore
    nodes.push(await startServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', '2000', '--cluster-port', String(bus), '--repl-diskless-sync-delay', '0']));
  }
  const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
  execFileSync(
    'redis-cli',
    ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; ; i++) {
    const states = await Promise.all(nodes.map((n) => n.admin.call('CLUSTER', 'INFO')));
    if (states.every((s) => s.includes('cluster_state:ok'))) break;
    if (i > 200) throw new Error('the cluster did not become healthy');
    await new Promise((r) => setTimeout(r, 100));
  }
  const masters = [];
  for (const n of nodes)
    if ((await n.admin.info('replication')).includes('role:master')) masters.push(n);
  return { url: `redis+cluster://${addresses.join(',')}`, nodes, masters };
}

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

async function commandsOf(node) {
  const info = await node.admin.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)[1]);
}

async function measure(title, url, replicas, masters, options) {
  const servers = [...masters, ...replicas];
  const prefix = `bench-cl-${process.pid}`;
  const store = new RedisExecutionStore({ url }, { prefix, ...options.store });
  const flows = new RedisFlowStore({ url }, { prefix });
  const queue = new RedisStreamQueue(
    { url },
    { prefix, stream: `${prefix}:tasks`, ...options.queue },
  );
  let done = -1;
  let resolveDone;
  const allDone = new Promise((resolve) => (resolveDone = resolve));
  const worker = new FlowWorker({
    store,
    flows,
    queue,
    concurrency: CONCURRENCY,
    pollBlockMs: 200,
    logger: silentLogger,
    metrics: null,
    engine: { hooks: { onFlowEnd: () => void (++done === N && resolveDone()) } },
  });
  const client = new PlaitaClient({ store, flows, queue });
  await client.start(flow, { i: -1 }); // publish and warm the connections, outside the timing
  done = -1;
  worker.start();
  await new Promise((r) => setTimeout(r, 300));
  const ticks0 = servers.map((s) => cpuTicks(s.pid));
  const commands0 = await Promise.all(masters.map(commandsOf));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i += 200)
    await Promise.all(
      Array.from({ length: Math.min(200, N - i) }, (_, k) => client.start(flow, { i: i + k })),
    );
  await allDone;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const used = servers.map((s, i) => ((cpuTicks(s.pid) - ticks0[i]) * 1000) / TICKS_PER_S);
  const serverMs = used.slice(0, masters.length).reduce((a, b) => a + b, 0);
  const replicaMs = used.slice(masters.length).reduce((a, b) => a + b, 0);
  const commands = (await Promise.all(masters.map(commandsOf))).map((c, i) => c - commands0[i]);
  await worker.stop();
  await Promise.all([store.close(), flows.close(), queue.close()]);
  const total = commands.reduce((a, b) => a + b, 0);
  const nodeMs = (cpu.user + cpu.system) / 1000;
  const row = {
    title,
    executionsPerS: Math.round(N / (ms / 1000)),
    cpuMsPerExecution: (nodeMs + serverMs) / N,
    nodeMsPerExecution: nodeMs / N,
    redisMsPerExecution: serverMs / N,
    replicaMsPerExecution: replicaMs / N,
    spread: commands.map((c) => c / total),
  };
  console.log(
    `${title.padEnd(34)} ${String(row.executionsPerS).padStart(6)} exec/s   CPU ${row.cpuMsPerExecution.toFixed(2)} ms/exec (node ${row.nodeMsPerExecution.toFixed(2)}, redis masters ${row.redisMsPerExecution.toFixed(2)}; replicas ${row.replicaMsPerExecution.toFixed(2)} beside)   commands per master: ${row.spread.map((s) => `${(s * 100).toFixed(0)}%`).join(' / ')}`,
  );
  return row;
}

console.log(
  `bench:cluster — ${N} executions of a ${STEPS}-node flow, checkpoint after each node, one worker, concurrency ${CONCURRENCY}\n`,
);
const single = await startServer([]);
const one = await measure('one Redis', `redis://127.0.0.1:${single.port}`, [], [single], {
  store: {},
  queue: {},
});
const cluster = await startCluster();
const replicas = cluster.nodes.filter((n) => !cluster.masters.includes(n));
const c1 = await measure('cluster, 1 partition', cluster.url, replicas, cluster.masters, {
  store: {},
  queue: {},
});
const c6 = await measure(
  'cluster, 6 partitions (+6 index)',
  cluster.url,
  replicas,
  cluster.masters,
  {
    store: { indexPartitions: 6 },
    queue: { partitions: 6 },
  },
);
const ratio = c6.cpuMsPerExecution / one.cpuMsPerExecution;
const busiest = Math.max(...c6.spread);
console.log('');
console.log(
  `CPU per execution (this process + the masters), 6-partition cluster ÷ one Redis = ${ratio.toFixed(2)}x   (target ≤ 1.3x; replication to the replicas is printed beside, not counted)`,
);
console.log(
  `busiest master with 6 partitions: ${(busiest * 100).toFixed(0)}% of commands   (target ≤ 45%); with 1 partition: ${(Math.max(...c1.spread) * 100).toFixed(0)}%`,
);
for (const s of [single, ...cluster.nodes]) {
  s.admin.disconnect();
  s.child.kill('SIGKILL');
  rmSync(s.dir, { recursive: true, force: true });
}
process.exit(0);
