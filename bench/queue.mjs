// Task queue throughput: enqueue + receive + ack round trips per second on both queues
// (docs/durable-contract.md §4). Prints figures only; build first (`npm run build`).
// Redis: PLAITA_BENCH_REDIS_URL or redis://127.0.0.1:6379, keys under a unique prefix, removed
// afterwards (never FLUSHALL). Local: a temporary SQLite file (WAL), removed afterwards.
// Usage: node bench/queue.mjs [seconds per case, default 3]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { LocalQueue } from '../dist/sqlite.js';
import { RedisStreamQueue } from '../dist/redis.js';
import { queueKeys } from '../dist/backends/redis/queue/redis-stream-keys.js';

const SECONDS = Number(process.argv[2] ?? 3);
const REDIS_URL = process.env.PLAITA_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const message = (i) => ({ v: 1, kind: 'run', executionId: `bench-${i}`, tenantId: 't1' });

/**
 * `concurrency` loops, each: enqueue one message, receive one (any worker's), ack it. Measures
 * the full life of a message through the queue, as a worker process with that many slots sees it.
 */
async function roundTrips(queue, concurrency) {
  let done = 0;
  let next = 0;
  const latencies = [];
  const until = Date.now() + SECONDS * 1000;
  const loop = async (slot) => {
    while (Date.now() < until) {
      const started = performance.now();
      await queue.enqueue(message(next++));
      const deliveries = await queue.receive(`bench-${slot}`, { max: 1, blockMs: 1000 });
      for (const delivery of deliveries) await queue.ack(delivery);
      done += deliveries.length;
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, slot) => loop(slot)));
  const elapsedS = (performance.now() - started) / 1000;
  // Drain what the last iterations enqueued after their receive, so the next case starts empty.
  for (;;) {
    const rest = await queue.receive('bench-drain', { max: 100, blockMs: 0 });
    if (rest.length === 0) break;
    for (const delivery of rest) await queue.ack(delivery);
  }
  latencies.sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { perSecond: done / elapsedS, p50: p(0.5), p99: p(0.99) };
}

/** Enqueue `count` first, then drain with receive(max 50) + ack: batch consumption throughput. */
async function drain(queue, count) {
  for (let i = 0; i < count; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, (_, j) => queue.enqueue(message(i + j))),
    );
  }
  const started = performance.now();
  let done = 0;
  while (done < count) {
    const deliveries = await queue.receive('bench-drain', { max: 50, blockMs: 100 });
    await Promise.all(deliveries.map((d) => queue.ack(d)));
    done += deliveries.length;
  }
  return count / ((performance.now() - started) / 1000);
}

function print(label, result) {
  const rate = typeof result === 'number' ? result : result.perSecond;
  const extra =
    typeof result === 'number'
      ? ''
      : `   p50 ${result.p50.toFixed(2)} ms   p99 ${result.p99.toFixed(2)} ms`;
  console.log(`${label.padEnd(52)} ${rate.toFixed(0).padStart(8)} msg/s${extra}`);
}

async function benchRedis() {
  const prefix = `plaita_bench_${process.pid}_${Date.now().toString(36)}:`;
  const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix });
  const raw = new Redis(REDIS_URL);
  try {
    await queue.stats();
  } catch (error) {
    console.log(`Redis at ${REDIS_URL} not reachable, skipped (${error.message})`);
    await queue.close();
    raw.disconnect();
    return;
  }
  try {
    print('redis-stream  enqueue+receive+ack  concurrency 1', await roundTrips(queue, 1));
    print('redis-stream  enqueue+receive+ack  concurrency 50', await roundTrips(queue, 50));
    print('redis-stream  drain 20k  receive(max 50)+ack', await drain(queue, 20_000));
  } finally {
    await queue.close();
    await raw.del(...Object.values(queueKeys('plaita:tasks', prefix)));
    await raw.quit();
  }
}

async function benchLocal() {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-bench-queue-'));
  const queue = new LocalQueue({ path: join(dir, 'plaita.db') });
  try {
    print('local (SQLite)  enqueue+receive+ack  concurrency 1', await roundTrips(queue, 1));
    print('local (SQLite)  enqueue+receive+ack  concurrency 50', await roundTrips(queue, 50));
    print('local (SQLite)  drain 20k  receive(max 50)+ack', await drain(queue, 20_000));
  } finally {
    await queue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`node ${process.version}, ${SECONDS} s per round-trip case`);
await benchRedis();
await benchLocal();
