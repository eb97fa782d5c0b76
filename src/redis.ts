// `plaita/redis`: the Redis stores and the Redis Streams task queue. Importing it loads ioredis
// (an optional peer dependency) at once: without it the import fails here with
// PeerDependencyMissingError naming the package.
import { ioredisDriver } from './backends/redis/ioredis-driver.js';

ioredisDriver('plaita/redis');

export type {
  RedisClient,
  RedisConnectionOptions,
  RedisTarget,
} from './backends/redis/redis-connection.js';
export {
  RedisExecutionStore,
  type RedisExecutionStoreOptions,
  type RedisStoreOptions,
} from './backends/redis/store/redis-execution-store.js';
export { RedisFlowStore } from './backends/redis/store/redis-flow-store.js';
export {
  RedisStreamQueue,
  type RedisStreamQueueConnection,
  type RedisStreamQueueOptions,
} from './backends/redis/queue/redis-stream-queue.js';
export { RedisControlStore } from './backends/redis/store/redis-control-store.js';
// docs/scaling.md "Changing the partition count": the operator's step that moves the old layout.
export {
  drainQueue,
  type DrainOptions,
  type DrainReport,
} from './backends/redis/queue/drain-queue.js';
