// npm run bench:api — the HTTP API of `plaita serve` (embedded default: SQLite + local queue +
// in-process worker) under autocannon, in one run: (a) POST /v1/executions of the echo flow
// with a unique Idempotency-Key per request, (b) GET /v1/executions/{id}, (c) GET /healthz.
// Prints requests/s and p50/p99 of each, the ratios (a)/(c) and (b)/(c), and the server's RSS
// before and after. Targets (issue 9): (a) ≥ 0.5 of (c), (b) ≥ 0.7 of (c), p99 of (a) < 20 ms at
// 50 connections, memory flat over 100,000 requests.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const ROOT = new URL('../', import.meta.url).pathname;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const port = 18000 + Math.floor(Math.random() * 1000);
const cwd = mkdtempSync(join(tmpdir(), 'plaita-bench-api-'));
const echo = JSON.parse(readFileSync(join(ROOT, 'examples/echo.json'), 'utf8'));

const server = spawn(
  process.execPath,
  [join(ROOT, 'dist/cli.js'), 'serve', '--port', String(port), '--rate-limit', '0'],
  {
    cwd,
    env: { ...process.env, PLAITA_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let stderr = '';
server.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
const token = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 20_000);
  const poll = setInterval(() => {
    const key = /plt_[0-9a-f]{16}_[A-Za-z0-9_-]+/.exec(stderr)?.[0];
    if (key && stderr.includes('serving')) {
      clearInterval(poll);
      clearTimeout(timer);
      resolve(key);
    }
  }, 50);
});
const base = `http://127.0.0.1:${port}`;
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

function rssMb() {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
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
    `${title.padEnd(44)} ${result.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms${errors ? `   (${errors} errors/non-2xx)` : ''}`,
  );
  return result;
}

try {
  const first = await fetch(`${base}/v1/executions?wait=10s`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ flow: echo, input: { name: 'Ada' } }),
  });
  const { executionId } = await first.json();
  // Warm-up, so the JIT and the caches are in their steady state for every measured run.
  await autocannon({ url: `${base}/healthz`, connections: 10, amount: 5000 });
  const rssBefore = rssMb();
  const health = await load('(c) GET /healthz', { url: `${base}/healthz` });
  const read = await load('(b) GET /v1/executions/{id}', {
    url: `${base}/v1/executions/${executionId}`,
    headers: auth,
  });
  // A unique Idempotency-Key per request from autocannon's own id replacement: a per-request
  // setupRequest callback costs the load generator more than the server's answer.
  const start = await load('(a) POST /v1/executions (unique Idempotency-Key)', {
    url: `${base}/v1/executions`,
    method: 'POST',
    headers: { ...auth, 'idempotency-key': `bench-${process.pid}-[<id>]` },
    idReplacement: true,
    body: JSON.stringify({ flow: echo, input: { name: 'Ada' } }),
  });
  const total = health.requests.total + read.requests.total + start.requests.total;
  const rssAfter = rssMb();
  console.log('');
  console.log(
    `(a)/(c) = ${(start.requests.average / health.requests.average).toFixed(2)}   target ≥ 0.5`,
  );
  console.log(
    `(b)/(c) = ${(read.requests.average / health.requests.average).toFixed(2)}   target ≥ 0.7`,
  );
  console.log(
    `p99 of (a) = ${start.latency.p99} ms at ${CONNECTIONS} connections   target < 20 ms`,
  );
  console.log(
    `server RSS: ${rssBefore.toFixed(0)} MB before, ${rssAfter.toFixed(0)} MB after ${total} requests`,
  );
} finally {
  server.kill('SIGTERM');
}
