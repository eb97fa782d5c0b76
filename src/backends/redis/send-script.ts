import { ioredisDriver, type IORedisDriver } from './ioredis-driver.js';
import type { RedisClient } from './redis-connection.js';

/**
 * EVALSHA / EVAL for the scripts of the stores and the queue. On a plain client (one node or
 * a cluster) the command is built with its final argument list, ready to write: ioredis's
 * generic command functions copy every argument list through `Array.prototype.flat()`, which
 * costs more than all the rest of building a command (a few µs per call, at a dozen scripts
 * per execution). A cluster routes the command by its first key and follows MOVED/ASK in its
 * own `sendCommand`, as for any command. Any other client (a key prefix, auto-pipelining,
 * friendly error stacks) goes through the ordinary API, which handles what the shortcut does not.
 */
export function sendScript(
  client: RedisClient,
  command: 'evalsha' | 'eval',
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const { Command, Redis, Cluster } = ioredisDriver();
  if (!isPlain(client, Redis, Cluster))
    return client[command](script, keys.length, ...keys, ...args);
  const argv: string[] = [script, String(keys.length), ...keys];
  for (const arg of args) argv.push(typeof arg === 'string' ? arg : String(arg));
  // Built empty, then given its arguments: the constructor's flat() copy runs on nothing.
  const sent = new Command(command, [], { replyEncoding: 'utf8' });
  sent.args = argv;
  return client.sendCommand(sent) as Promise<unknown>;
}

function isPlain(
  client: RedisClient,
  Redis: IORedisDriver['Redis'],
  Cluster: IORedisDriver['Cluster'],
): boolean {
  if (client instanceof Redis) {
    const { keyPrefix, enableAutoPipelining, showFriendlyErrorStack } = client.options;
    return !keyPrefix && !enableAutoPipelining && !showFriendlyErrorStack;
  }
  if (client instanceof Cluster) {
    const { keyPrefix, enableAutoPipelining, showFriendlyErrorStack, redisOptions } =
      client.options;
    return (
      !keyPrefix && !redisOptions?.keyPrefix && !enableAutoPipelining && !showFriendlyErrorStack
    );
  }
  return false;
}
