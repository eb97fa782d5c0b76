// One worker process of the scaling benchmark (bench/worker.mjs): Redis store and stream under
// PREFIX, CONCURRENCY at once; it starts consuming on the parent's 'go' and counts each finished
// execution in Redis (<PREFIX>:done). SIGTERM stops it.
import Redis from 'ioredis';
import { FlowWorker } from '../dist/worker/flow-worker.js';
import { RedisExecutionStore } from '../dist/store/redis/redis-execution-store.js';
import { RedisFlowStore } from '../dist/store/redis/redis-flow-store.js';
import { RedisStreamQueue } from '../dist/queue/redis-stream/redis-stream-queue.js';
import { silentLogger } from '../dist/util/logger.js';
import { onCompleted } from './on-completed.mjs';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.PREFIX;
const counter = new Redis(url);
const store = new RedisExecutionStore({ url }, { prefix });
const flows = new RedisFlowStore({ url }, { prefix });
const queue = new RedisStreamQueue({ url }, { prefix, stream: `${prefix}:tasks` });
const worker = new FlowWorker({
  store,
  flows,
  queue,
  concurrency: Number(process.env.CONCURRENCY ?? 50),
  pollBlockMs: 200,
  logger: silentLogger,
});
onCompleted(store, () => void counter.incr(`${prefix}:done`));
process.on('message', (message) => {
  if (message === 'go') worker.start();
});
process.once('SIGTERM', async () => {
  await worker.stop();
  await Promise.all([store.close(), flows.close(), queue.close()]);
  counter.disconnect();
  process.exit(0);
});
process.send('ready');
