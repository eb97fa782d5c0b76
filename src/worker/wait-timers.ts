import { delayTimerEvent, timerOfWait, waitVisit } from '../engine/wait-timer.js';
import type { Flow } from '../flow/flow.js';
import type { TaskMessage } from '../queue/task-message.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { ExecutionState } from '../state/execution-state.js';
import { DEFAULT_TENANT } from '../store/execution-store.js';
import type { Clock } from '../util/clock.js';
import { envelope, type EventEnvelope } from './event-matching.js';

/** What a durable timer does when it fires. */
export type TimerKind = 'delay' | 'timeout';

/**
 * Stable per suspension: the same visit of the same node always gets the same timer id. Timer
 * ids are unique per queue (dedup and cancel go by them) while execution ids are unique per
 * tenant only, so another tenant's id carries its tenant first, with `:` and `/` escaped (the
 * parse below reads from the end and skips what comes before the node id). The default tenant
 * keeps the bare form timers were written in before, unless its execution id has a `/` (a
 * child's does): that one starts `%/`, which no escaped tenant can, so the default tenant's
 * `acme/order-1` never names tenant `acme`'s `order-1` timer.
 */
export function timerId(
  tenantId: string,
  executionId: string,
  nodeId: string,
  visit: number,
  kind: TimerKind,
): string {
  const tenant =
    tenantId !== DEFAULT_TENANT
      ? `${tenantId.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\//g, '%2F')}/`
      : executionId.includes('/')
        ? '%/'
        : '';
  return `${tenant}${executionId}:${nodeId}:${visit}:${kind}`;
}

export function parseTimerId(
  id: string,
): { nodeId: string; visit: number; kind: TimerKind } | null {
  const parts = id.split(':');
  const kind = parts.at(-1);
  const visit = Number(parts.at(-2));
  if (parts.length < 4 || (kind !== 'delay' && kind !== 'timeout') || !Number.isInteger(visit))
    return null;
  return { nodeId: parts.slice(1, -2).join(':'), visit, kind };
}

type TimerMessage = Extract<TaskMessage, { kind: 'timer' }>;

/** What a fired timer delivers to its node. */
export type TimerResume = { type: 'timeout'; data: null } | { type: 'event'; data: EventEnvelope };

/**
 * The worker's durable timers (docs/durable-contract.md §6): a suspended execution's wait arms
 * one through the queue's delayed messages, a wait that ends withdraws it, and a fired one is
 * turned into the resume it stands for. Which timer a wait has, and the event a delay delivers,
 * the engine says (engine/wait-timer.ts).
 */
export class WaitTimers {
  constructor(
    private readonly queue: TaskQueue,
    private readonly clock: Clock,
  ) {}

  /**
   * Arms the timer of `state`'s wait, if it has one. Idempotent: the timer's id dedups it. A
   * wait recorded before its timer was kept needs `flow` to tell its kind: without it, nothing
   * is armed here (the caller that has the flow arms it).
   */
  async arm(state: ExecutionState, flow: Flow | null): Promise<void> {
    if (state.status !== 'suspended') return;
    const timer = timerOfWait(state, flow);
    if (!timer?.kind) return;
    const id = timerId(state.tenantId, state.executionId, timer.nodeId, timer.visit, timer.kind);
    const message: TaskMessage = {
      v: 1,
      kind: 'timer',
      executionId: state.executionId,
      tenantId: state.tenantId,
      nodeId: timer.nodeId,
      timerId: id,
    };
    await this.queue.enqueue(message, {
      delayMs: Math.max(0, timer.dueAt - this.clock.now()),
      dedupId: id,
    });
  }

  /** Withdraws the timer of `state`'s wait (both kinds when the record does not say which). */
  async cancel(state: ExecutionState): Promise<void> {
    const timer = timerOfWait(state, null);
    if (!timer) return;
    const kinds = timer.kind === null ? (['delay', 'timeout'] as const) : [timer.kind];
    for (const kind of kinds)
      await this.queue
        .cancelDelayed(timerId(state.tenantId, state.executionId, timer.nodeId, timer.visit, kind))
        .catch(() => false);
  }

  /**
   * What `message` asks of `state`: the resume of the wait it was armed for, or null when that
   * wait is over (a timer fires once: only for the same visit of the same node, still waiting).
   */
  fired(message: TimerMessage, state: ExecutionState, flow: Flow): TimerResume | null {
    const timer = parseTimerId(message.timerId);
    const waiting = state.waiting;
    if (
      !timer ||
      state.status !== 'suspended' ||
      !waiting ||
      waiting.nodeId !== timer.nodeId ||
      waitVisit(state, waiting) !== timer.visit
    )
      return null;
    if (timer.kind === 'timeout') return { type: 'timeout', data: null };
    const event = delayTimerEvent(state, flow, this.clock.now());
    return { type: 'event', data: envelope(message.timerId, waiting.eventType, event, waiting) };
  }
}
