import type { DeadLetter, Delivery } from '../../../queue/task-queue.js';
import { parseTaskMessage } from '../../../queue/task-message.js';

/**
 * Turns raw stream replies into domain objects. Redis replies are untyped arrays; anything that
 * does not have the expected shape is reported, never trusted silently.
 */

/** Stream ids look like `<ms>-<seq>`; anything else would be a Redis syntax error, not a miss. */
export const STREAM_ID = /^\d+-\d+$/;

export function fieldMap(fields: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (!Array.isArray(fields)) return map;
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), String(fields[i + 1]));
  return map;
}

/**
 * A delivery for any entry, valid or not: an entry without a payload field (written by something
 * other than this queue) comes back malformed with its fields as the payload, so the worker can
 * dead-letter it instead of crashing or skipping it.
 */
export function toDelivery(id: string, rawFields: unknown, deliveryCount: number): Delivery {
  const fields = fieldMap(rawFields);
  const payload = fields.get('payload');
  if (payload === undefined) {
    return {
      id,
      deliveryCount,
      payload: JSON.stringify(Object.fromEntries(fields)),
      parsed: { ok: false, reason: 'stream entry has no payload field' },
    };
  }
  return { id, deliveryCount, payload, parsed: parseTaskMessage(payload) };
}

/** XREADGROUP reply: `[[stream, [[id, fields], ...]]]` or null. New entries are first deliveries. */
export function newDeliveries(reply: unknown): Delivery[] {
  if (!Array.isArray(reply)) return [];
  const out: Delivery[] = [];
  for (const stream of reply as unknown[]) {
    const entries = Array.isArray(stream) ? (stream[1] as unknown) : undefined;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as unknown[]) {
      if (Array.isArray(entry)) out.push(toDelivery(String(entry[0]), entry[1], 1));
    }
  }
  return out;
}

/** claim-expired.lua reply: `[cursor, [[id, deliveryCount, fields], ...]]`. */
export function claimedDeliveries(reply: unknown): { cursor: string; deliveries: Delivery[] } {
  if (!Array.isArray(reply)) throw new TypeError('claim-expired.lua: unexpected reply');
  const [cursor, entries] = reply as [unknown, unknown];
  const deliveries = Array.isArray(entries)
    ? (entries as unknown[])
        .filter(Array.isArray)
        .map((e) => toDelivery(String(e[0]), e[2], Number(e[1])))
    : [];
  return { cursor: String(cursor), deliveries };
}

export function toDeadLetter(id: string, rawFields: unknown): DeadLetter {
  const fields = fieldMap(rawFields);
  return {
    id,
    reason: fields.get('reason') ?? '',
    lastError: fields.get('lastError') ?? null,
    deliveryCount: Number(fields.get('deliveryCount') ?? 0),
    payload: fields.get('payload') ?? '',
    executionId: fields.get('executionId') ?? null,
    at: fields.get('at') ?? new Date(idMs(id)).toISOString(),
  };
}

/** The millisecond part of a stream id (when the server added it). */
export function idMs(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/** stats.lua reply → the queue's counters (see RedisStreamQueue.stats for what each means). */
export function queueStats(reply: unknown): {
  ready: number;
  inFlight: number;
  delayed: number;
  deadLetters: number;
  oldestReadyAgeMs: number | null;
} {
  if (!Array.isArray(reply)) throw new TypeError('stats.lua: unexpected reply');
  const [length, pending, delayed, deadLetters, firstReady, seconds, micros] = reply as unknown[];
  // Server time, like the ids: the age does not depend on this machine's clock.
  const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  return {
    ready: Math.max(0, Number(length) - Number(pending)),
    inFlight: Number(pending),
    delayed: Number(delayed),
    deadLetters: Number(deadLetters),
    oldestReadyAgeMs: typeof firstReady === 'string' ? Math.max(0, nowMs - idMs(firstReady)) : null,
  };
}

/** Stream ids compared as (ms, seq) numbers. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = splitStreamId(a);
  const [bm, bs] = splitStreamId(b);
  return am - bm || as - bs;
}

function splitStreamId(id: string): [number, number] {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}
