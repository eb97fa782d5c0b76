import { z } from 'zod';
import { builtinNode, enumField } from '../builtin-node.js';
import { resumeSuspended, serviceState, serviceValue } from './suspend-state.js';

/** docs/flow-format.md §3.18 `redis_queue`: waits for a message a Redis listener service publishes. */
export const redisQueueNode = builtinNode({
  type: 'redis_queue',
  suspending: true,
  schema: z.looseObject({
    redis_host: z.string().optional(),
    redis_port: z.union([z.number().int(), z.string()]).optional(),
    redis_db: z.union([z.number().int(), z.string()]).optional(),
    redis_password: z.string().nullable().optional(),
    queue_name: z.string().min(1),
    queue_type: enumField(['list', 'stream', 'pubsub']).optional(),
    timeout_seconds: z.number().min(0).optional(),
    batch_size: z.number().int().positive().optional(),
    message_format: enumField(['json', 'text', 'raw']).optional(),
  }),
  load: (raw) => ({
    host: raw.redis_host ?? 'localhost',
    port: raw.redis_port ?? 6379,
    db: raw.redis_db ?? 0,
    password: raw.redis_password ?? null,
    queueName: raw.queue_name,
    queueType: raw.queue_type ?? 'list',
    timeoutSeconds: raw.timeout_seconds ?? 0,
    batchSize: raw.batch_size ?? 1,
    messageFormat: raw.message_format ?? 'json',
  }),
  async run(ctx) {
    const d = ctx.def;
    return serviceState(
      ctx,
      'redis_message',
      {},
      {
        redis_config: {
          host: await serviceValue(ctx, d.host),
          port: await serviceValue(ctx, d.port),
          db: await serviceValue(ctx, d.db),
          password: await serviceValue(ctx, d.password),
        },
        queue_config: {
          queue_name: await serviceValue(ctx, d.queueName),
          queue_type: d.queueType,
          batch_size: d.batchSize,
          message_format: d.messageFormat,
        },
        listen_config: { timeout_seconds: d.timeoutSeconds },
      },
    );
  },
  resume: resumeSuspended,
  wait: (def) => ({ timeoutMs: def.timeoutSeconds > 0 ? def.timeoutSeconds * 1000 : null }),
});
