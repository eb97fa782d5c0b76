import { z } from 'zod';
import { builtinNode, enumField } from '../builtin-node.js';
import { resumeSuspended, serviceState, serviceValue } from './suspend-state.js';

/** docs/flow-format.md §3.18 `kafka_queue`: waits for a message a Kafka consumer service publishes. */
export const kafkaQueueNode = builtinNode({
  type: 'kafka_queue',
  suspending: true,
  schema: z.looseObject({
    bootstrap_servers: z.union([z.string().min(1), z.array(z.string()).min(1)]),
    security_protocol: enumField(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']).optional(),
    sasl_mechanism: enumField(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']).optional(),
    sasl_username: z.string().nullable().optional(),
    sasl_password: z.string().nullable().optional(),
    topic: z.string().min(1),
    partition: z.number().int().nullable().optional(),
    group_id: z.string().min(1),
    auto_offset_reset: enumField(['latest', 'earliest']).optional(),
    enable_auto_commit: z.boolean().optional(),
    max_poll_records: z.number().int().positive().optional(),
    message_format: enumField(['json', 'text']).optional(),
    timeout_ms: z.number().int().min(0).optional(),
  }),
  load: (raw) => ({
    bootstrapServers: raw.bootstrap_servers,
    securityProtocol: raw.security_protocol ?? 'PLAINTEXT',
    saslMechanism: raw.sasl_mechanism ?? 'PLAIN',
    saslUsername: raw.sasl_username ?? null,
    saslPassword: raw.sasl_password ?? null,
    topic: raw.topic,
    partition: raw.partition ?? null,
    groupId: raw.group_id,
    autoOffsetReset: raw.auto_offset_reset ?? 'latest',
    enableAutoCommit: raw.enable_auto_commit ?? true,
    maxPollRecords: raw.max_poll_records ?? 1,
    messageFormat: raw.message_format ?? 'json',
    timeoutMs: raw.timeout_ms ?? 30000,
  }),
  async run(ctx) {
    const d = ctx.def;
    return serviceState(
      ctx,
      'kafka_message',
      {},
      {
        kafka_config: {
          // Evaluated first, then split, as the original does: `$INPUT.brokers` may hold a CSV.
          bootstrap_servers: serverList(await serviceValue(ctx, d.bootstrapServers)),
          security_protocol: d.securityProtocol,
          sasl_mechanism: d.saslMechanism,
          sasl_username: await serviceValue(ctx, d.saslUsername),
          sasl_password: await serviceValue(ctx, d.saslPassword),
        },
        // `message_format` sits in topic_config, where the original's Kafka service reads it.
        topic_config: {
          topic: await serviceValue(ctx, d.topic),
          partition: d.partition,
          message_format: d.messageFormat,
        },
        consumer_config: {
          group_id: await serviceValue(ctx, d.groupId),
          auto_offset_reset: d.autoOffsetReset,
          enable_auto_commit: d.enableAutoCommit,
          max_poll_records: d.maxPollRecords,
          timeout_ms: d.timeoutMs,
        },
      },
    );
  },
  resume: resumeSuspended,
});

/** A CSV string of servers becomes a list; a list (or anything else an expression gave) is kept. */
function serverList(servers: unknown): unknown {
  if (typeof servers !== 'string') return servers;
  return servers
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
