import type { EngineOptions } from '../engine/engine-options.js';
import type { ResumeKind, StepOutcome } from '../engine/run-step.js';
import { Stepper } from '../engine/stepper.js';
import { isPendingIn, timerKind } from '../engine/suspension.js';
import { defaultFunctions } from '../expression/function-registry.js';
import type { Flow } from '../flow/flow.js';
import type { FlowError } from '../flow-errors.js';
import type { TaskMessage } from '../queue/task-message.js';
import {
  type ExecutionState,
  type InboxEvent,
  rememberAppliedEventId,
} from '../state/execution-state.js';
import { getOwn } from '../util/own-record.js';
import type { HandlingResult } from './decide.js';
import { envelope, eventMatches } from './event-matching.js';
import type { FencedWriter } from './fenced-writer.js';
import type { LeaseKeeper } from './lease-keeper.js';
import {
  afterStep,
  flowErrorRecord,
  toCompleted,
  toStillWaiting,
  toSuspended,
  unfinishedResumes,
  withEntryTiming,
  withResumeCounted,
} from './state-transitions.js';
import { timerId, visitOf } from './wait-timers.js';
import type { WorkerDeps } from './worker-deps.js';

/** Longest stretch of steps without giving the event loop a turn (ms). */
const YIELD_EVERY_MS = 10;

/**
 * The step loop of one execution while this worker holds its lease: runs one node per step and
 * hands each outcome to the FencedWriter, which writes every state.
 */
export class ExecutionDriver {
  constructor(
    private readonly deps: WorkerDeps,
    readonly flow: Flow,
    readonly keeper: LeaseKeeper,
    readonly writer: FencedWriter,
  ) {}

  get state(): ExecutionState {
    return this.writer.state;
  }

  #now(): Date {
    return this.writer.now();
  }

  persist(next: ExecutionState, changedNodes: readonly string[] | null): Promise<void> {
    return this.writer.persist(next, changedNodes);
  }

  /** Adopts `next` unsaved: the next step's checkpoint writes it (see FencedWriter.stage). */
  stage(next: ExecutionState): void {
    this.writer.stage(next);
  }

  cancel(reason: string): Promise<HandlingResult> {
    return this.writer.cancel(reason);
  }

  keepInInbox(event: InboxEvent): Promise<HandlingResult> {
    return this.writer.keepInInbox(event);
  }

  /** Steps until the execution ends, suspends with nothing to resume it, fails, or is cancelled. */
  async run(): Promise<HandlingResult> {
    let yieldedAt = performance.now();
    for (;;) {
      // A store that answers synchronously (SQLite, memory) resolves every await as a
      // microtask: without a turn of the event loop now and then, lease renewals, the cancel
      // poll and every other execution on this process would starve behind a long flow.
      if (performance.now() - yieldedAt > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        yieldedAt = performance.now();
      }
      if (this.keeper.cancelRequested) return this.cancel('cancelled by request');
      this.keeper.throwIfLost();
      const fresh = this.#isFresh();
      const outcome = await this.step(null);
      const done = await this.settle(outcome, fresh);
      if (done) return done;
    }
  }

  /** Delivers an event (or a timer) to the suspended node, then keeps stepping. */
  async resume(
    kind: 'event' | 'timeout',
    data: unknown,
    applied: { eventId?: string },
  ): Promise<HandlingResult> {
    // The node's resume (and the hooks around it) may be what kills a worker: the delivery is
    // counted first, so a redelivery after such a crash ends in node_crash_loop, not a loop.
    const waitingNode = this.state.waiting?.nodeId;
    if (waitingNode !== undefined) {
      if (unfinishedResumes(this.state) >= this.deps.settings.maxNodeAttempts)
        return { kind: 'crash_loop', nodeId: waitingNode };
      await this.persist(withResumeCounted(this.state, this.#now()), []);
    }
    const outcome = await this.step({ type: kind, data });
    if (outcome.status === 'failed') return this.fail(outcome.error);
    const waiting = this.state.waiting;
    // The node took the event and is still pending (docs/flow-format.md §3.17: an event may leave it
    // unchanged; a plugin may gather several): it goes on waiting, timers and all.
    const stillWaiting =
      kind === 'event' && waiting !== null && isPendingIn(outcome.context, waiting.nodeId);
    const next = stillWaiting
      ? toStillWaiting(this.state, outcome.context, this.#now())
      : {
          ...afterStep(this.state, outcome.context, null, outcome.nextNodeId, this.#now()),
          waiting: null,
        };
    if (applied.eventId !== undefined) {
      next.appliedEventIds = rememberAppliedEventId(next.appliedEventIds, applied.eventId);
      next.inbox = next.inbox.filter((e) => e.eventId !== applied.eventId);
    }
    await this.persist(next, outcome.changedNodes);
    return stillWaiting ? { kind: 'suspended' } : this.run();
  }

  /** A suspended execution whose timer may not have been enqueued (a crash between save and enqueue). */
  async ensureTimers(): Promise<void> {
    const waiting = this.state.waiting;
    if (this.state.status !== 'suspended' || !waiting?.dueAt) return;
    const delayMs = Math.max(0, Date.parse(waiting.dueAt) - this.deps.clock.now());
    // The rule the engine armed it by (engine/suspension.ts): a delay resumes with an event.
    const node = this.flow.nodesById.get(waiting.nodeId);
    const suspended = getOwn(
      (this.state.context.$NODE ?? {}) as Record<string, unknown>,
      waiting.nodeId,
    );
    const kind = (node && timerKind(node, suspended)) ?? 'timeout';
    const id = timerId(
      this.state.tenantId,
      this.state.executionId,
      waiting.nodeId,
      visitOf(this.state, waiting.nodeId),
      kind,
    );
    const message: TaskMessage = {
      v: 1,
      kind: 'timer',
      executionId: this.state.executionId,
      tenantId: this.state.tenantId,
      nodeId: waiting.nodeId,
      timerId: id,
    };
    await this.deps.queue.enqueue(message, { delayMs, dedupId: id });
  }

  /** The first inbox event the suspended node waits for, in arrival order. */
  matchingInboxEvent(): InboxEvent | undefined {
    const waiting = this.state.waiting;
    if (this.state.status !== 'suspended' || !waiting) return undefined;
    return this.state.inbox.find((e) => eventMatches(waiting, e.type, e.data));
  }

  deliverable(type: string, data: unknown): boolean {
    const waiting = this.state.waiting;
    return (
      this.state.status === 'suspended' && waiting !== null && eventMatches(waiting, type, data)
    );
  }

  async deliverFromInbox(event: InboxEvent): Promise<HandlingResult> {
    return this.resume(
      'event',
      envelope(event.eventId, event.type, event.data, this.state.waiting!),
      { eventId: event.eventId },
    );
  }

  /** The node the next step runs (the crash-loop guard counts its start before it runs). */
  get nextNodeId(): string | null {
    return this.#stepper().nextNodeId;
  }

  /** The node the next step runs, when node metrics are kept (a resume runs the waiting one). */
  private metricsNodeId(): string | null {
    if (!this.deps.metrics) return null;
    return this.state.waiting?.nodeId ?? this.nextNodeId;
  }

  /**
   * The first step of a fresh execution runs no host code, so its start need not be durable
   * before it runs (NodeType.inert): its node is inert and retries nothing (a retry waits with
   * the record still `queued`), every `$F` function is a built-in, and no engine hook is set
   * (hooks are host code, and they fire in that step).
   */
  get freshStepIsInert(): boolean {
    const nodeId = this.nextNodeId;
    if (!this.#isFresh() || nodeId === null) return false;
    const node = this.flow.nodesById.get(nodeId);
    if (node?.nodeType.inert !== true || node.def.errorHandler.retryTimes > 0) return false;
    const { hooks, functions } = this.deps.engine;
    if (hooks !== undefined && (!Array.isArray(hooks) || hooks.length > 0)) return false;
    return (functions ?? defaultFunctions).onlyBuiltins();
  }

  /** Ends the delivery's live execution. */
  close(): void {
    this.#live?.dispose();
  }

  #live: Stepper | undefined;

  /**
   * One live execution per delivery: restored from the loaded checkpoint once, then kept
   * across the steps this handling runs (the engine's Stepper), in step with `state.context`.
   */
  #stepper(): Stepper {
    this.#live ??= new Stepper(
      this.flow,
      this.#isFresh()
        ? { input: this.state.context.$INPUT ?? {}, executionId: this.state.executionId }
        : { checkpoint: this.state.context },
      this.engineOptions(),
    );
    return this.#live;
  }

  /** No step has run yet: the context is the queued execution's, with only `$INPUT`. */
  #isFresh(): boolean {
    return typeof this.state.context.$EXECUTION_ID !== 'string';
  }

  /**
   * A transient failure of this worker's own services met inside a step (a child flow's
   * definition could not be read from the flow store): the step's outcome, a node failure or a
   * result an error handler made of it, is not the flow's. The handling fails as transient
   * instead, and the step runs again from the last checkpoint on redelivery.
   */
  #outage: Error | undefined;

  private async step(resume: { type: ResumeKind; data: unknown } | null): Promise<StepOutcome> {
    const started = performance.now();
    // Read before the step: a step that fails reports no node, but it was this one's.
    const nodeId = this.metricsNodeId();
    const outcome = await this.#stepper().step(resume);
    if (this.#outage !== undefined) {
      this.close(); // the live execution went on past the outage: never reuse it
      throw this.#outage;
    }
    const nodeType =
      outcome.step?.type ??
      (nodeId === null ? undefined : this.flow.nodesById.get(nodeId)?.def.type) ??
      'none';
    this.deps.metrics?.nodeSeconds.observe(
      { type: nodeType },
      (performance.now() - started) / 1000,
    );
    return outcome;
  }

  #engineOptions: EngineOptions | undefined;

  /** Built once per delivery: the engine memoizes its resolution by identity. */
  private engineOptions(): EngineOptions {
    this.#engineOptions ??= {
      ...this.deps.engine,
      signal: this.keeper.signal,
      tenantId: this.state.tenantId,
      resolveFlow: (flowId, version) =>
        this.deps.resolver
          .byVersion(flowId, version, { tenantId: this.state.tenantId })
          .catch((error: unknown) => {
            // Our own flow store down is not the flow's failure (see #outage).
            if (error instanceof Error && (error as { retryable?: unknown }).retryable === true)
              this.#outage ??= error;
            throw error;
          }),
      events: {
        subscribe: (r) =>
          `sub:${this.state.executionId}:${r.nodeId}:${visitOf(this.state, r.nodeId) + 1}`,
      },
    };
    return this.#engineOptions;
  }

  /** Persists one step's outcome; returns the handling result when the loop should stop. */
  private async settle(outcome: StepOutcome, fresh: boolean): Promise<HandlingResult | null> {
    const now = this.#now();
    if (fresh) this.writer.state = withEntryTiming(this.state, this.flow.startNode?.def.id ?? null);
    if (outcome.status === 'failed') return this.fail(outcome.error);
    // The first step wrote `start` and one node into a context that had none: write it whole.
    const changed = fresh ? null : outcome.changedNodes;
    const nodeId = outcome.step.nodeId;
    this.writer.failedNode = nodeId; // until the checkpoint below is stored
    const result = await this.persistOutcome(outcome, changed, nodeId, now);
    this.writer.failedNode = null;
    return result;
  }

  private async persistOutcome(
    outcome: Exclude<StepOutcome, { status: 'failed' }>,
    changed: string[] | null,
    nodeId: string | null,
    now: Date,
  ): Promise<HandlingResult | null> {
    switch (outcome.status) {
      case 'completed':
        await this.persist(
          toCompleted(this.state, outcome.context, nodeId, outcome.result, now),
          changed,
        );
        return { kind: 'completed' };
      case 'suspended': {
        const { dueAt: planned, timeoutMs } = outcome.waiting;
        const dueAt = planned ?? (timeoutMs === null ? null : now.getTime() + timeoutMs);
        await this.persist(
          toSuspended(this.state, outcome.context, outcome.waiting, dueAt, now),
          changed,
        );
        await this.ensureTimers();
        const early = this.matchingInboxEvent();
        return early ? this.deliverFromInbox(early) : { kind: 'suspended' };
      }
      case 'advanced':
        await this.persist(
          afterStep(this.state, outcome.context, nodeId, outcome.nextNodeId, now),
          changed,
        );
        return null;
    }
  }

  private async fail(error: FlowError): Promise<HandlingResult> {
    // Lease loss and cancellation surface as a cancelled step: they are not the flow's failure.
    this.keeper.throwIfLost();
    if (this.keeper.cancelRequested) return this.cancel('cancelled by request');
    await this.writer.writeError(flowErrorRecord(error));
    return { kind: 'node_failed' };
  }
}
