// npm run bench:cluster — the Redis tier on one Redis and on a 3-master Redis Cluster (issue 13),
// in one run on this machine: executions/s of the 5-node checkpointed flow, CPU per execution
// (this process — worker and client — plus every redis-server), and how the commands spread
// over the masters. On a 2-core machine a cluster cannot be faster in total; what matters is
// that the partitioned cluster costs ≤ 1.3x the CPU per execution of one Redis and that no
// master carries more than 45% of the commands. Each set-up is measured BENCH_CLUSTER_ROUNDS times
// (default 3), in turn, and the ratio is taken between medians. Beside it, the same ratio against
// one Redis feeding a replica (each master feeds one): what the cluster costs over a replicated
// single Redis, which is what it replaces in a deployment that keeps a copy.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { parseFlow, PlaitaClient } from '../dist/index.js';
import { RedisExecutionStore, RedisFlowStore, RedisStreamQueue } from '../dist/redis.js';
import { FlowWorker } from '../dist/worker.js';
import { silentLogger } from './worker-harness.mjs';
import { chainFlowDocument } from './chain-flow.mjs';
import { onCompleted } from './on-completed.mjs';

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

/** `INFO commandstats` of a server: calls and microseconds per command name. */
async function commandStatsOf(node) {
  const stats = new Map();
  for (const m of (await node.admin.info('commandstats')).matchAll(
    /cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g,
  ))
    stats.set(m[1], { calls: Number(m[2]), usec: Number(m[3]) });
  return stats;
}

/** Per execution, summed over the masters: each command's calls and server µs (BENCH_CLUSTER_COMMANDS=1). */
function printCommandCosts(before, after) {
  const total = new Map();
  after.forEach((stats, i) => {
    for (const [name, now] of stats) {
      const was = before[i].get(name) ?? { calls: 0, usec: 0 };
      const sum = total.get(name) ?? { calls: 0, usec: 0 };
      total.set(name, {
        calls: sum.calls + now.calls - was.calls,
        usec: sum.usec + now.usec - was.usec,
      });
    }
  });
  const rows = [...total].filter(([, c]) => c.calls > 0).sort((a, b) => b[1].usec - a[1].usec);
  for (const [name, c] of rows)
    console.log(
      `    ${name.padEnd(14)} ${(c.calls / N).toFixed(2).padStart(6)} calls/exec ${(c.usec / N).toFixed(0).padStart(5)} µs/exec`,
    );
}

async function commandsOf(node) {
  const info = await node.admin.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)[1]);
}

let measured = 0;

async function measure(title, url, replicas, masters, options) {
  const servers = [...masters, ...replicas];
  const prefix = `bench-cl-${process.pid}-${++measured}`;
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
  });
  onCompleted(store, () => void (++done === N && resolveDone()));
  const client = new PlaitaClient({ store, flows, queue });
  await client.start(flow, { i: -1 }); // publish and warm the connections, outside the timing
  done = -1;
  worker.start();
  await new Promise((r) => setTimeout(r, 300));
  const ticks0 = servers.map((s) => cpuTicks(s.pid));
  const commands0 = await Promise.all(masters.map(commandsOf));
  const commandStats0 = await Promise.all(masters.map(commandStatsOf));
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
  const commandStats = await Promise.all(masters.map(commandStatsOf));
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
  if (process.env.BENCH_CLUSTER_COMMANDS === '1') printCommandCosts(commandStats0, commandStats);
  return row;
}

console.log(
  `bench:cluster — ${N} executions of a ${STEPS}-node flow, checkpoint after each node, one worker, concurrency ${CONCURRENCY}\n`,
);
const ROUNDS = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 3);
const single = await startServer([]);
// One Redis feeding one replica, as a deployment that keeps a copy would run it: each cluster
// master feeds its replica too, so this is the like-for-like figure (printed beside the target's).
const primary = await startServer([]);
const replica = await startServer(['--replicaof', '127.0.0.1', String(primary.port)]);
for (let i = 0; !(await primary.admin.info('replication')).includes('connected_slaves:1'); i++) {
  if (i > 200) throw new Error('the replica of the single Redis did not connect');
  await new Promise((r) => setTimeout(r, 50));
}
const cluster = await startCluster();
const replicas = cluster.nodes.filter((n) => !cluster.masters.includes(n));
// The three set-ups measured in turn, ROUNDS times: one short run's Node CPU swings by ±20% on
// these machines, so the ratio is taken between medians, and every round's ratio is printed.
const rows = { one: [], replicated: [], c1: [], c6: [] };
// Round 0 warms the JIT on every path (not counted): measured cold, the first set-up would pay
// for the compilation of the code all three share.
for (let round = 0; round <= ROUNDS; round++) {
  console.log(round === 0 ? 'warm-up round (not counted)' : `round ${round} of ${ROUNDS}`);
  const one = await measure('one Redis', `redis://127.0.0.1:${single.port}`, [], [single], {
    store: {},
    queue: {},
  });
  const replicated = await measure(
    'one Redis + 1 replica',
    `redis://127.0.0.1:${primary.port}`,
    [replica],
    [primary],
    { store: {}, queue: {} },
  );
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
  if (round === 0) continue;
  rows.one.push(one);
  rows.replicated.push(replicated);
  rows.c1.push(c1);
  rows.c6.push(c6);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpuOf = (list) => median(list.map((r) => r.cpuMsPerExecution));
const ratio = cpuOf(rows.c6) / cpuOf(rows.one);
const perRound = rows.c6.map((r, i) =>
  (r.cpuMsPerExecution / rows.one[i].cpuMsPerExecution).toFixed(2),
);
const busiest = Math.max(...rows.c6.flatMap((r) => r.spread));
console.log('');
console.log(
  `median CPU per execution (this process + the masters): one Redis ${cpuOf(rows.one).toFixed(2)} ms, cluster 1 partition ${cpuOf(rows.c1).toFixed(2)} ms, 6 partitions ${cpuOf(rows.c6).toFixed(2)} ms`,
);
console.log(
  `6-partition cluster ÷ one Redis = ${ratio.toFixed(2)}x   (target ≤ 1.3x; per round ${perRound.join(', ')}; replication to the replicas is printed beside, not counted)`,
);
console.log(
  `like for like, against one Redis feeding one replica (${cpuOf(rows.replicated).toFixed(2)} ms): ${(cpuOf(rows.c6) / cpuOf(rows.replicated)).toFixed(2)}x`,
);
console.log(
  `busiest master with 6 partitions: ${(busiest * 100).toFixed(0)}% of commands   (target ≤ 45%); with 1 partition: ${(Math.max(...rows.c1.flatMap((r) => r.spread)) * 100).toFixed(0)}%`,
);
for (const s of [single, primary, replica, ...cluster.nodes]) {
  s.admin.disconnect();
  s.child.kill('SIGKILL');
  rmSync(s.dir, { recursive: true, force: true });
}
process.exit(0);
