import { ItemFailure, TickBatch } from '../../util/tick-batch.js';
import { keySlot } from '../../backends/redis/key-slot.js';
import { CaughtReplyError, toStoreError } from '../../backends/redis/classify-redis-error.js';
import type { RedisConnection } from '../../backends/redis/redis-connection.js';
import type { ScriptArg } from '../../backends/redis/redis-script.js';
import { SCRIPTS } from './redis-store-scripts.js';
import { unexpected } from './script-reply.js';

/** One save as save-state.lua takes it: its keys and arguments. */
export interface SaveCall {
  executionId: string;
  keys: readonly string[];
  args: readonly ScriptArg[];
}

/**
 * Most saves one script call carries: bounds how long one call holds Redis (other clients
 * wait while a script runs) and how much one failed call takes down with it.
 */
const SAVES_PER_CALL = 64;

/**
 * Group commit on Redis: the saves of one tick, of any executions, go as ONE
 * `save-states.lua` call (per slot on a cluster, where a script's keys share a slot), instead
 * of one script per save. Redis pays one script invocation and the worker one command, one
 * reply and one promise per batch. Each save is still fenced, size-guarded and answered on its
 * own inside the script; a save's promise settles once the call that carried it is answered,
 * so nothing is acknowledged before it is written.
 */
export class RedisSaveBatch {
  readonly #batches: TickBatch<SaveCall, unknown>;

  constructor(private readonly connection: RedisConnection) {
    this.#batches = new TickBatch((_, calls) => this.#send(calls), {
      maxItems: SAVES_PER_CALL,
      // The end of the tick: every execution woken by one socket read of replies has saved by
      // then, and the call still joins the write the connection uncorks this turn.
      flushOn: 'tick',
    });
  }

  /** save-state.lua's reply to this save (a rejected promise for a failed command). */
  run(call: SaveCall): Promise<unknown> {
    // A single Redis takes every key in one script; a cluster only one slot's.
    const batchKey = this.connection.isCluster ? String(keySlot(call.keys[0] ?? '')) : '';
    return this.#batches.add(batchKey, call);
  }

  async #send(calls: readonly SaveCall[]): Promise<unknown[]> {
    const keys: string[] = [];
    const args: ScriptArg[] = [calls.length];
    for (const call of calls) {
      for (const key of call.keys) keys.push(key);
      args.push(call.keys.length, call.args.length);
      for (const arg of call.args) args.push(arg);
    }
    const first = calls[0]?.executionId;
    const what =
      calls.length === 1
        ? `save of execution ${first}`
        : `save of ${calls.length} executions (${first}, …)`;
    const replies = await this.connection.call(what, (client) =>
      SCRIPTS.saveStates.run(client, keys, args),
    );
    if (!Array.isArray(replies) || replies.length !== calls.length)
      throw unexpected(replies, 'save-states');
    return replies.map((reply: unknown, i) => {
      if (!Array.isArray(reply) || reply[0] !== 'ERROR') return reply;
      // Classified as the reply it would have been had the save gone alone.
      const message = String(reply[1]);
      const error = new CaughtReplyError(/^[A-Z]/.test(message) ? message : `ERR ${message}`);
      return new ItemFailure(toStoreError(error, `save of execution ${calls[i]!.executionId}`));
    });
  }
}
