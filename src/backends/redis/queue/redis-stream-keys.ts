import { keySlot, SLOT_COUNT } from '../key-slot.js';

/**
 * The Redis keys of one queue. They all carry the same hash tag, `{<stream>}`, so every script
 * touches one slot and the queue runs on Redis Cluster unchanged.
 *
 * | key                          | type        | holds                                   |
 * |------------------------------|-------------|-----------------------------------------|
 * | `<prefix>{<stream>}`         | stream      | ready and in-flight messages (+ group)  |
 * | `<prefix>{<stream>}:delayed` | sorted set  | timer id, score = due epoch ms          |
 * | `<prefix>{<stream>}:timers`  | hash        | timer id -> payload                     |
 * | `<prefix>{<stream>}:dlq`     | stream      | dead letters                            |
 */
export interface QueueKeys {
  readonly stream: string;
  readonly delayed: string;
  readonly timers: string;
  readonly deadLetters: string;
}

export function queueKeys(stream: string, prefix = ''): QueueKeys {
  // A brace inside the name would change which part Redis hashes, splitting the keys across slots.
  if (stream === '' || /[{}]/.test(stream) || /[{}]/.test(prefix)) {
    throw new TypeError(
      `invalid queue stream name ${JSON.stringify(stream)} / prefix ${JSON.stringify(prefix)}: no braces, not empty`,
    );
  }
  const tagged = `${prefix}{${stream}}`;
  return {
    stream: tagged,
    delayed: `${tagged}:delayed`,
    timers: `${tagged}:timers`,
    deadLetters: `${tagged}:dlq`,
  };
}

/**
 * The keys of every partition of a queue, index = partition number. One partition is exactly
 * {@link queueKeys} (the key names of an unpartitioned queue, so existing data keeps working).
 * With N > 1, partition `i` is tagged `{<stream>:<i>.<k>}` with the smallest `k ≥ 0` whose slot
 * lies in the i-th N-th of the slot space: the partitions spread evenly over the slots, so on a
 * cluster whose masters own equal slot ranges (what `redis-cli --cluster create` makes) every
 * master serves its share of partitions. Deterministic: every process computes the same tags.
 */
export function partitionKeys(stream: string, prefix: string, partitions: number): QueueKeys[] {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS)
    throw new RangeError(
      `partitions must be an integer from 1 to ${MAX_PARTITIONS}, got ${partitions}`,
    );
  if (partitions === 1) return [queueKeys(stream, prefix)];
  return Array.from({ length: partitions }, (_, i) =>
    queueKeys(spreadTag(stream, i, partitions), prefix),
  );
}

/** More partitions than this would not spread over more masters than a cluster can have. */
export const MAX_PARTITIONS = 1024;

function spreadTag(stream: string, index: number, partitions: number): string {
  const low = Math.floor((index * SLOT_COUNT) / partitions);
  const high = Math.floor(((index + 1) * SLOT_COUNT) / partitions);
  for (let k = 0; ; k++) {
    const tag = `${stream}:${index}of${partitions}.${k}`;
    const slot = keySlot(`{${tag}}`);
    if (slot >= low && slot < high) return tag;
  }
}
