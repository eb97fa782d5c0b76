import type { ParsedMessage, TaskMessage } from './task-message.js';
import type { Clock } from '../util/clock.js';

/** One delivery of a message to a consumer (at-least-once: the same message may come again). */
export interface Delivery {
  /** Queue-specific id (a stream entry id, a row id). */
  readonly id: string;
  /** 1 on the first delivery; grows with every redelivery after a visibility timeout. */
  readonly deliveryCount: number;
  /** The raw payload as stored. */
  readonly payload: string;
  /** The validated message, or why it is malformed. */
  readonly parsed: ParsedMessage;
}

export interface EnqueueOptions {
  /** Deliver no earlier than this many ms from now (durable timers). */
  delayMs?: number;
  /**
   * For delayed messages: a key that makes the enqueue idempotent (a timer scheduled twice
   * fires once). Ignored for immediate messages.
   */
  dedupId?: string;
}

export interface DeadLetter {
  id: string;
  reason: string;
  lastError: string | null;
  deliveryCount: number;
  payload: string;
  executionId: string | null;
  /** ISO-8601. */
  at: string;
}

export interface ReceiveOptions {
  /** At most this many deliveries. */
  max: number;
  /** Wait up to this long for a message when none is ready (0 = do not wait). */
  blockMs: number;
}

/**
 * The task queue (docs/durable-contract.md §4). At-least-once; a message not acknowledged within the
 * visibility timeout is delivered again, to any consumer. Implementations: RedisStreamQueue
 * (distributed), LocalQueue (embedded, SQLite). Both pass `test/contracts/task-queue.contract.ts`.
 *
 * Every method rejects with StoreUnavailableError on a transient backend failure.
 */
export interface TaskQueue {
  /** Returns the message's queue id (for a delayed message: its timer id). */
  enqueue(message: TaskMessage, options?: EnqueueOptions): Promise<string>;
  /**
   * New messages, and messages whose visibility timeout expired (reclaimed from dead
   * consumers, their deliveryCount incremented). Moves due delayed messages first.
   */
  receive(consumer: string, options: ReceiveOptions): Promise<Delivery[]>;
  /** Acknowledges and deletes the message. Idempotent. */
  ack(delivery: Delivery): Promise<void>;
  /**
   * Keeps a long-running message invisible without counting a delivery — only while it is
   * still owned by `consumer` (checked atomically). False when it was lost to another consumer.
   */
  renew(delivery: Delivery, consumer: string): Promise<boolean>;
  /** Writes the dead letter, then acknowledges the original (atomically where the backend allows). */
  deadLetter(delivery: Delivery, reason: string, lastError?: string | null): Promise<void>;
  /** Moves due delayed messages to the ready queue (atomic claim, no double enqueue); returns how many. */
  promoteDue(now?: number): Promise<number>;
  /** Cancels a delayed message by the id `enqueue` returned (or its dedupId); true if it was pending. */
  cancelDelayed(id: string): Promise<boolean>;
  listDeadLetters(options?: {
    limit?: number;
    cursor?: string | null;
  }): Promise<{ items: DeadLetter[]; nextCursor: string | null }>;
  /** One dead letter by the id `listDeadLetters` gave it; null when there is none (or the id is not one). */
  findDeadLetter(id: string): Promise<DeadLetter | null>;
  /** Re-enqueues the dead letter's payload and removes it from the dead-letter queue. */
  replayDeadLetter(id: string): Promise<boolean>;
  /** Removes every dead letter; returns how many. */
  purgeDeadLetters(): Promise<number>;
  /** Ready + in-flight + delayed counts, and the age of the oldest ready message (queue lag). */
  stats(): Promise<{
    ready: number;
    inFlight: number;
    delayed: number;
    deadLetters: number;
    oldestReadyAgeMs: number | null;
  }>;
  close(): Promise<void>;
}

export interface TaskQueueOptions {
  /** Default 30 s. */
  visibilityTimeoutMs?: number;
  /** Dead-letter queue cap (default 10,000). */
  dlqMaxLen?: number;
  connectTimeoutMs?: number;
  /**
   * The queue's "now" (default the system clock): delays' due times, visibility and claim
   * expiry, dead letters' times. How long a receive blocks (`blockMs`) is real waiting time,
   * measured on the system clock.
   */
  clock?: Clock;
}

export const DEFAULT_VISIBILITY_TIMEOUT_MS = 30_000;
export const DEFAULT_DLQ_MAX_LEN = 10_000;

/**
 * The execution a delivery belongs to, also for a malformed one when its JSON still names one
 * (so an operator can find the dead letter by execution).
 */
export function executionIdOf(delivery: Delivery): string | null {
  if (delivery.parsed.ok) return delivery.parsed.message.executionId;
  try {
    const value = JSON.parse(delivery.payload) as unknown;
    const id =
      typeof value === 'object' && value !== null
        ? (value as { executionId?: unknown }).executionId
        : undefined;
    return typeof id === 'string' && id !== '' ? id : null;
  } catch {
    return null;
  }
}
