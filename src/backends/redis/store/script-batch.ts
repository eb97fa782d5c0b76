import { ItemFailure, TickBatch } from '../../../util/tick-batch.js';
import { keySlot } from '../key-slot.js';
import { CaughtReplyError, toStoreError } from '../classify-redis-error.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisScript, ScriptArg } from '../redis-script.js';
import { unexpected } from './script-reply.js';

/** One execution's share of a batch script call: its keys and arguments. */
export interface ScriptCall {
  executionId: string;
  keys: readonly string[];
  args: readonly ScriptArg[];
}

/**
 * Most items one script call carries: bounds how long one call holds Redis (other clients
 * wait while a script runs) and how much one failed call takes down with it.
 */
const ITEMS_PER_CALL = 64;

/**
 * Group commit on Redis: the per-execution script calls of one tick (saves, claims), of any
 * executions, go as ONE call of a batch script (run-batch.lua; per slot on a cluster, where a
 * script's keys share a slot) instead of one script each. Redis pays one script invocation,
 * the worker one command, one reply and one promise per batch. Each item is still checked and
 * answered on its own inside the script; its promise settles once the call that carried it is
 * answered, so nothing is acknowledged before it is written.
 */
export class ScriptBatch {
  readonly #batches: TickBatch<ScriptCall, unknown>;

  /** `what` names an item in messages: `save` → "save of execution e1". */
  constructor(
    private readonly connection: RedisConnection,
    private readonly script: RedisScript,
    private readonly what: string,
  ) {
    this.#batches = new TickBatch((_, calls) => this.#send(calls), {
      maxItems: ITEMS_PER_CALL,
      // The end of the tick: every execution woken by one socket read of replies has called
      // by then, and the batch still joins the write the connection uncorks this turn.
      flushOn: 'tick',
    });
  }

  /** The per-execution script's reply to this call (a rejected promise for a failed command). */
  run(call: ScriptCall): Promise<unknown> {
    // A single Redis takes every key in one script; a cluster only one slot's.
    const batchKey = this.connection.isCluster ? String(keySlot(call.keys[0] ?? '')) : '';
    return this.#batches.add(batchKey, call);
  }

  /** Sends what waits for the end of this tick now; resolves once every call has settled. */
  settle(): Promise<void> {
    return this.#batches.settle();
  }

  async #send(calls: readonly ScriptCall[]): Promise<unknown[]> {
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
        ? `${this.what} of execution ${first}`
        : `${this.what} of ${calls.length} executions (${first}, …)`;
    const replies = await this.connection.call(what, (client) =>
      this.script.run(client, keys, args),
    );
    if (!Array.isArray(replies) || replies.length !== calls.length)
      throw unexpected(replies, this.script.name);
    return replies.map((reply: unknown, i) => {
      if (!Array.isArray(reply) || reply[0] !== 'ERROR') return reply;
      // Classified as the reply it would have been had the item gone alone.
      const message = String(reply[1]);
      const error = new CaughtReplyError(/^[A-Z]/.test(message) ? message : `ERR ${message}`);
      return new ItemFailure(
        toStoreError(error, `${this.what} of execution ${calls[i]!.executionId}`),
      );
    });
  }
}
