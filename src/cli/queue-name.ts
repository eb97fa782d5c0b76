import { queueKeys } from '../backends/redis/queue/redis-stream-keys.js';
import { CliError, EXIT } from './exit-codes.js';

/**
 * `--queue` / PLAITA_QUEUE, checked by the queue module's own rule (`queueKeys`: every key is
 * hash-tagged `{<stream>}`, so the name may not be empty or hold a brace). Unset or an empty
 * PLAITA_QUEUE means the default stream.
 */
export function queueNameOption(flag: string | undefined): string | undefined {
  const name = flag ?? (process.env.PLAITA_QUEUE || undefined);
  if (name === undefined) return undefined;
  try {
    queueKeys(name);
  } catch {
    throw new CliError(
      `--queue ${JSON.stringify(name)} is not a valid stream name: it must be non-empty and hold no brace { or } (the queue's keys are hash-tagged {<stream>} for Redis Cluster), e.g. plaita:tasks`,
      EXIT.usage,
    );
  }
  return name;
}
