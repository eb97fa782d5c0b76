// One worker process of the scaling benchmark (bench/worker.mjs): Redis store and stream under
// PREFIX, CONCURRENCY at once, bench_step registered; it starts consuming on the parent's 'go'
// and counts each finished execution in Redis (<PREFIX>:done). SIGTERM stops it.
import Redis from 'ioredis';
import { FlowWorker } from '../dist/worker.js';
import { benchRegistry } from './chain-flow.mjs';
import { countingMetrics, redisParts, silentLogger } from './worker-harness.mjs';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.PREFIX;
const counter = new Redis(url);
const parts = redisParts(prefix);
const worker = new FlowWorker({
  store: parts.store,
  flows: parts.flows,
  queue: parts.queue,
  registry: benchRegistry(),
  concurrency: Number(process.env.CONCURRENCY ?? 50),
  pollBlockMs: 200,
  logger: silentLogger,
  metrics: countingMetrics(() => void counter.incr(`${prefix}:done`)),
});
process.on('message', (message) => {
  if (message === 'go') worker.start();
});
process.once('SIGTERM', async () => {
  await worker.stop();
  await parts.close();
  counter.disconnect();
  process.exit(0);
});
process.send('ready');
