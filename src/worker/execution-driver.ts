import type { EngineOptions } from '../engine/engine-options.js';
import type { ResumeKind, StepOutcome } from '../engine/run-step.js';
import { Stepper } from '../engine/stepper.js';
import { isPendingIn } from '../engine/suspension.js';
import type { Flow } from '../flow/flow.js';
import type { FlowError } from '../errors/flow-errors.js';
import { checkpointInput, hasStarted } from '../state/checkpoint-context.js';
import {
  type ExecutionState,
  type InboxEvent,
  rememberAppliedEventId,
} from '../state/execution-state.js';
import type { HandlingResult } from './decide.js';
import { envelope, inboxEventFor } from './event-matching.js';
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
import type { WorkerDeps } from './worker-deps.js';

/** Longest stretch of steps without giving the event loop a turn (ms). */
const YIELD_EVERY_MS = 10;

/**
 * The step loop of one execution while this worker holds its lease: runs one node per step
 * (or delivers a resume to the waiting one) and hands each outcome to the FencedWriter, which
 * writes every state. Its one job; the handler talks to the writer and the timers itself.
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

  private persist(next: ExecutionState, changedNodes: readonly string[] | null): Promise<void> {
    return this.writer.persist(next, changedNodes);
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
      if (this.keeper.cancelRequested) return this.writer.cancel('cancelled by request');
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
   * The first step of a fresh execution runs no host code (Stepper.firstStepIsInert), so its
   * start need not be durable before it runs.
   */
  get freshStepIsInert(): boolean {
    return this.#isFresh() && this.#stepper().firstStepIsInert;
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
        ? { input: checkpointInput(this.state.context) ?? {}, executionId: this.state.executionId }
        : { checkpoint: this.state.context },
      this.engineOptions(),
    );
    return this.#live;
  }

  /** No step has run yet: the context is the queued execution's, with only its input. */
  #isFresh(): boolean {
    return !hasStarted(this.state.context);
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
        subscribe: (r) => `sub:${this.state.executionId}:${r.nodeId}:${r.visit}`,
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
    let result: HandlingResult | null;
    try {
      result = await this.persistOutcome(outcome, changed, nodeId, now);
    } catch (error) {
      if (!this.#carried || !isUnstorable(error)) throw error;
      // It carried the results of replayable nodes: which node made the state unstorable, and
      // what the last good checkpoint holds, are what saving every node would have said. So
      // from the last checkpoint again, saving every node (the replayable ones recompute).
      this.#carried = false;
      this.#rideAlong = false;
      this.writer.unstage();
      this.close();
      this.#live = undefined; // restored from the last checkpoint by the next step
      return null;
    }
    this.writer.failedNode = null;
    this.#carried = this.writer.hasStaged;
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
        // Stored, its timer armed (FencedWriter.persist); an event already in the inbox goes in.
        await this.persist(
          toSuspended(this.state, outcome.context, outcome.waiting, dueAt, now),
          changed,
        );
        const early = inboxEventFor(this.state);
        return early ? this.deliverFromInbox(early) : { kind: 'suspended' };
      }
      case 'advanced': {
        const next = afterStep(this.state, outcome.context, nodeId, outcome.nextNodeId, now);
        if (this.#ridesAlong(nodeId, outcome.nextNodeId)) this.writer.stage(next, changed);
        else await this.persist(next, changed);
        return null;
      }
    }
  }

  /** Replayable results may ride along unsaved (until a save carrying some was refused). */
  #rideAlong = true;
  /** The state staged since the last save carries results of replayable nodes. */
  #carried = false;

  /**
   * docs/durable-contract.md §5 step 5: a replayable node's result need not be stored before
   * the next node runs when that node is replayable too (an effectful node's start is stored
   * before it runs: the crash-loop guard counts it), unless the run has gone unsaved for
   * `checkpointIntervalMs`. A redelivery saves every node, so a node that keeps killing its
   * worker is the one the guard names.
   */
  #ridesAlong(done: string | null, next: string | null): boolean {
    const { settings, replayable } = this.deps;
    return (
      this.#rideAlong &&
      this.writer.deliveryCount === 1 &&
      this.writer.msSinceSave < settings.checkpointIntervalMs &&
      replayable.has(this.flow, done) &&
      replayable.has(this.flow, next)
    );
  }

  private async fail(error: FlowError): Promise<HandlingResult> {
    // Lease loss and cancellation surface as a cancelled step: they are not the flow's failure.
    this.keeper.throwIfLost();
    if (this.keeper.cancelRequested) return this.writer.cancel('cancelled by request');
    await this.writer.writeError(flowErrorRecord(error));
    return { kind: 'node_failed' };
  }
}

/** A save refused for good because of what it holds (state_too_large, state_not_serializable). */
function isUnstorable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'state_too_large' || code === 'state_not_serializable';
}
