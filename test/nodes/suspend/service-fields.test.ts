import { describe, expect, it } from 'vitest';
import { parseFlow, runFlow } from '../../../src/index.js';

/**
 * Service-node fields written as `$` references are evaluated (docs/flow-format.md §3.17), as
 * the original engine's nodes do. In run mode a suspending node does not wait: its pending
 * state is its result, which the `end` node returns here.
 */
function resultOf(node: Record<string, unknown>, input: Record<string, unknown>): Promise<unknown> {
  return runFlow(
    parseFlow({
      flow_id: 'service-fields',
      nodes: [
        { type: 'start', id: 's', next: String(node.id) },
        { ...node, next: 'e' },
        { type: 'end', id: 'e', output: `$NODE.${String(node.id)}` },
      ],
    }),
    input,
  );
}

describe('suspending service nodes', () => {
  it('kafka_queue evaluates a `$` bootstrap_servers, then splits the CSV it gives', async () => {
    const kafka = {
      type: 'kafka_queue',
      id: 'k',
      bootstrap_servers: '$INPUT.brokers',
      topic: '$INPUT.topic',
      group_id: 'g',
      message_format: 'text',
    };
    const state = (await resultOf(kafka, { brokers: 'k1:9092, k2:9092', topic: 'orders' })) as {
      service_config: Record<string, Record<string, unknown>>;
    };
    expect(state.service_config.kafka_config).toMatchObject({
      bootstrap_servers: ['k1:9092', 'k2:9092'],
    });
    // Where the original's Kafka service reads it.
    expect(state.service_config.topic_config).toEqual({
      topic: 'orders',
      partition: null,
      message_format: 'text',
    });
    expect(state.service_config.consumer_config).not.toHaveProperty('message_format');
  });

  it('kafka_queue keeps a literal CSV and a list as before', async () => {
    const base = { type: 'kafka_queue', id: 'k', topic: 't', group_id: 'g' };
    const servers = async (bootstrap: unknown) =>
      (
        (await resultOf({ ...base, bootstrap_servers: bootstrap }, {})) as {
          service_config: { kafka_config: { bootstrap_servers: unknown } };
        }
      ).service_config.kafka_config.bootstrap_servers;
    expect(await servers('a:1,b:2')).toEqual(['a:1', 'b:2']);
    expect(await servers(['a:1'])).toEqual(['a:1']);
    // A reference that gives nothing keeps its raw text (§3.17), as one server.
    expect(await servers('$INPUT.missing')).toEqual(['$INPUT.missing']);
  });

  it('delay evaluates a `$` event_type like the event node; a non-string keeps the raw text', async () => {
    const delay = { type: 'delay', id: 'd', delay_seconds: 1, event_type: '$INPUT.evt' };
    const woken = (await resultOf(delay, { evt: 'wake' })) as Record<string, unknown>;
    expect(woken.event_type).toBe('wake');
    expect(woken.service_config).toMatchObject({ event_type: 'wake', delay_ms: 1000 });
    const raw = (await resultOf(delay, { evt: 5 })) as Record<string, unknown>;
    expect(raw.event_type).toBe('$INPUT.evt');
  });
});

describe('branch targets written as YAML numbers (ids may be numbers)', () => {
  const always = { field: 1, operator: 'eq', value: 1 };
  const never = { field: 1, operator: 'eq', value: 2 };
  const end = (id: number) => ({ type: 'end', id, output: id });
  const run = (node: Record<string, unknown>) =>
    runFlow(
      parseFlow({
        flow_id: 'numeric-targets',
        nodes: [{ type: 'start', id: 's', next: 'b' }, node, end(3), end(4)],
      }),
      {},
    );

  it('if: a numeric next and else_next', async () => {
    const node = { type: 'if', id: 'b', next: 3, else_next: 4 };
    await expect(run({ ...node, condition: always })).resolves.toBe(3);
    await expect(run({ ...node, condition: never })).resolves.toBe(4);
  });

  it('switch: a numeric branch next and name', async () => {
    await expect(
      run({ type: 'switch', id: 'b', branches: [{ name: 'x', next: 3, condition: always }] }),
    ).resolves.toBe(3);
    await expect(
      run({ type: 'switch', id: 'b', branches: [{ name: 4, condition: always }] }),
    ).resolves.toBe(4);
  });
});
