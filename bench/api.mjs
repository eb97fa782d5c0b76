// npm run bench:api (also run by bench:worker) — the HTTP API of `plaita serve` under autocannon,
// set up as in production (issue 31): the store on Redis (or PostgreSQL: BENCH_API_STORE=postgres)
// with a Redis queue and NO worker in the server's process; `plaita worker` runs elsewhere (here a
// second process, stopped before the load so that the three measured runs share the machine
// alike; BENCH_API_WORKER_DURING_LOAD=1 keeps it consuming). In one run, against the same server:
//   (c) GET /healthz, (b) GET /v1/executions/{id} of a completed execution,
//   (a) POST /v1/executions of a published flow, a unique Idempotency-Key per request: the
//       start is stored and enqueued, nothing more.
// Prints requests/s, p50/p99 of each, (b)/(c) and (a)/(c), the server's RSS before and after,
// and one JSON line. Targets (issue 31): (b) ≥ 0.35 of (c), (a) ≥ 0.25 of (c), p99 < 20 ms at
// 50 connections.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { effectfulChainDocument } from './chain-flow.mjs';
import { cleanupRedisPrefix, PG_BASE, REDIS_URL } from './worker-harness.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 10));
const STORE_KIND = process.env.BENCH_API_STORE ?? 'redis';
const WORKER_DURING_LOAD = process.env.BENCH_API_WORKER_DURING_LOAD === '1';
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const NODES = fileURLToPath(new URL('./chain-flow.mjs', import.meta.url));
const FLOW_ID = 'bench-api-steps5';
const prefix = `bench-api-${process.pid}`;
const database = `bench_api_${process.pid}`;
const port = 18000 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${port}`;
const cwd = mkdtempSync(join(tmpdir(), 'plaita-bench-api-'));
const children = new Set();
process.once('exit', () => children.forEach((child) => child.kill('SIGKILL')));

async function storeUrl() {
  if (STORE_KIND === 'redis') return REDIS_URL;
  if (STORE_KIND !== 'postgres')
    throw new Error(`BENCH_API_STORE=${STORE_KIND}: redis or postgres`);
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  return `${PG_BASE}/${database}`;
}

async function dropStore() {
  await cleanupRedisPrefix(prefix);
  if (STORE_KIND !== 'postgres') return;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}

/** `plaita <command>` on the bench's store and queue, bench_step loaded, logging silenced. */
function plaita(command, args, store) {
  const queue = ['--redis-url', REDIS_URL, '--queue', `${prefix}:tasks`];
  const child = spawn(
    process.execPath,
    [CLI, command, '--store', store, ...queue, '--nodes', NODES, ...args],
    {
      cwd,
      env: { ...process.env, PLAITA_LOG_LEVEL: 'silent', PLAITA_PREFIX: prefix },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (child.output += chunk));
  return child;
}

function stop(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** The first admin key the server prints on a fresh store, once it serves. */
function serverKey(server) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start:\n${server.output}`)),
      30_000,
    );
    const poll = setInterval(() => {
      const key = /plt_[0-9a-f]{16}_[A-Za-z0-9_-]+/.exec(server.output)?.[0];
      if (key && server.output.includes('serving')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(key);
      }
    }, 50);
  });
}

async function call(method, path, headers, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function load(title, options) {
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION,
    ...options,
  });
  const errors = result.errors + result.non2xx;
  console.log(
    `${title.padEnd(52)} ${result.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms${errors ? `   (${errors} errors/non-2xx)` : ''}`,
  );
  return {
    requestsPerS: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    errors,
  };
}

const store = await storeUrl();
// No per-key rate or in-flight bound: one key drives all 50 connections, and the default
// in-flight bound (32) would answer the rest 429 — fast refusals, not request handling.
const server = plaita(
  'serve',
  ['--port', String(port), '--rate-limit', '0', '--max-in-flight', '0'],
  store,
);
let worker = plaita('worker', ['--concurrency', '50'], store);
try {
  const token = await serverKey(server);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const flowPath = `/v1/flows/${FLOW_ID}/versions/1`;
  await call('PUT', flowPath, auth, effectfulChainDocument(FLOW_ID, 5));
  await call('POST', `${flowPath}/publish`, auth);
  const first = await call('POST', '/v1/executions?wait=30s', auth, {
    flowId: FLOW_ID,
    input: { i: 1 },
  });
  if (first.status !== 'completed')
    throw new Error(`the execution to read did not complete: ${JSON.stringify(first)}`);
  if (!WORKER_DURING_LOAD) {
    await stop(worker);
    worker = null;
  }
  // Warm-up, so the JIT and the caches are in their steady state for every measured run.
  await autocannon({ url: `${base}/healthz`, connections: 10, amount: QUICK ? 500 : 5000 });
  await autocannon({
    url: `${base}/v1/executions/${first.executionId}`,
    headers: auth,
    connections: 10,
    amount: QUICK ? 200 : 2000,
  });
  const rssBefore = rssMb(server.pid);
  const health = await load('(c) GET /healthz', { url: `${base}/healthz` });
  const read = await load('(b) GET /v1/executions/{id} (completed)', {
    url: `${base}/v1/executions/${first.executionId}`,
    headers: auth,
  });
  // A unique Idempotency-Key per request from autocannon's own id replacement: a per-request
  // setupRequest callback costs the load generator more than the server's answer.
  const start = await load('(a) POST /v1/executions (enqueue only, unique key)', {
    url: `${base}/v1/executions`,
    method: 'POST',
    headers: { ...auth, 'idempotency-key': `bench-${process.pid}-[<id>]` },
    idReplacement: true,
    body: JSON.stringify({ flowId: FLOW_ID, input: { i: 2 } }),
  });
  const rssAfter = rssMb(server.pid);
  const report = {
    bench: 'api',
    store: STORE_KIND,
    queue: 'redis',
    worker_during_load: WORKER_DURING_LOAD,
    connections: CONNECTIONS,
    seconds: DURATION,
    healthz: health,
    get: read,
    post: start,
    get_ratio: +(read.requestsPerS / health.requestsPerS).toFixed(2),
    post_ratio: +(start.requestsPerS / health.requestsPerS).toFixed(2),
    server_rss_mb: [Math.round(rssBefore), Math.round(rssAfter)],
  };
  console.log(
    `(b)/(c) = ${report.get_ratio} (target ≥ 0.35)   (a)/(c) = ${report.post_ratio} (target ≥ 0.25)   p99 < 20 ms at ${CONNECTIONS} connections`,
  );
  console.log(
    `server RSS: ${report.server_rss_mb[0]} MB before, ${report.server_rss_mb[1]} MB after ${health.requests + read.requests + start.requests} requests`,
  );
  console.log(JSON.stringify(report));
} finally {
  await Promise.all([stop(server), worker ? stop(worker) : undefined]);
  await dropStore();
  rmSync(cwd, { recursive: true, force: true });
}
