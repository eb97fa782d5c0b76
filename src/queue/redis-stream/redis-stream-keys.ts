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
