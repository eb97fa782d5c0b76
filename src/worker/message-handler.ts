import { WorkerStoppedError } from '../errors/worker-errors.js';
import type { TaskMessage } from '../queue/task-message.js';
import type { Delivery } from '../queue/task-queue.js';
import { isTerminal, type ExecutionState } from '../state/execution-state.js';
import { claimExecution, type Lease } from '../store/execution-store.js';
import { decide, type Decision, type ExecutionErrorCode, type HandlingResult } from './decide.js';
import { envelope, inboxEventFor, isDeliverable } from './event-matching.js';
import { ExecutionDriver } from './execution-driver.js';
import { FencedWriter } from './fenced-writer.js';
import { heldWork, LeaseKeeper } from './lease-keeper.js';
import { errorRecord, settleMessage } from './message-outcome.js';
import {
  pendingWait,
  toRetried,
  toRewaiting,
  toRunning,
  unfinishedStarts,
} from './state-transitions.js';
import type { WorkerDeps } from './worker-deps.js';

type EventMessage = Extract<TaskMessage, { kind: 'event' }>;
type TimerMessage = Extract<TaskMessage, { kind: 'timer' }>;

/** What one delivery left behind, for the decision's state write. */
interface Handling {
  lease: Lease | null;
  /** Writes this handling's states; exists once the execution is leased and loaded. */
  writer: FencedWriter | null;
}

/**
 * Handles one delivery end to end: validate, lease, load, apply, step — then ONE pure
 * decision (`decide`) says what to write and what to do with the message.
 */
export class MessageHandler {
  /**
   * Lease keepers of executions this process is advancing, for in-process cancel, by tenant NUL
   * execution id: execution ids are unique per tenant only.
   */
  readonly active = new Map<string, LeaseKeeper>();
  #handlings = 0;
  /** Lease releases in flight, by tenant NUL execution id. */
  readonly #releasing = new Map<string, Promise<void>>();

  constructor(private readonly deps: WorkerDeps) {}

  /**
   * Counts abandonAll calls: a handling begun before the latest one was given up, one begun
   * after it (the worker started again) was not.
   */
  #abandonments = 0;
  #abandonReason = '';

  /**
   * Gives up every execution this process is advancing (see LeaseKeeper.abandon), and every
   * handling still claiming one: once its claim returns it goes no further.
   */
  abandonAll(reason: string): void {
    this.#abandonments++;
    this.#abandonReason = reason;
    for (const keeper of this.active.values()) keeper.abandon(reason);
  }

  /** A handling begun before abandonAll ran (`begun`: the count then) stops here, before it writes. */
  #throwIfAbandoned(begun: number, executionId: string): void {
    if (this.#abandonments !== begun)
      throw new WorkerStoppedError(this.#abandonReason, { executionId });
  }

  #now(): Date {
    return new Date(this.deps.clock.now());
  }

  /** `outcomeDurable` is called once the outcome is stored, before the message is settled. */
  async handle(delivery: Delivery, outcomeDurable?: () => void): Promise<Decision> {
    const handling: Handling = { lease: null, writer: null };
    const begun = this.#abandonments;
    let result: HandlingResult;
    try {
      result = await this.process(delivery, handling, begun);
    } catch (error) {
      result = { kind: 'failure', error };
    }
    // Given up meanwhile (stop() past its drain timeout): a failure is not this handling's to
    // act on (at its last delivery it would write delivery_exhausted); the message is left.
    if (result.kind === 'failure' && this.#abandonments !== begun)
      result = {
        kind: 'failure',
        error: new WorkerStoppedError(this.#abandonReason, {
          executionId: delivery.parsed.ok ? delivery.parsed.message.executionId : undefined,
        }),
      };
    const decision = decide(result, {
      deliveryCount: delivery.deliveryCount,
      maxDeliveries: this.deps.settings.maxDeliveries,
    });
    try {
      await this.act(delivery, decision, result, handling, outcomeDurable);
    } finally {
      await this.release(handling);
    }
    return decision;
  }

  private async process(
    delivery: Delivery,
    handling: Handling,
    begun: number,
  ): Promise<HandlingResult> {
    if (!delivery.parsed.ok) return { kind: 'malformed', reason: delivery.parsed.reason };
    const message = delivery.parsed.message;
    const { store, settings } = this.deps;
    const scope = { tenantId: message.tenantId };
    // One owner per handling: two messages of one execution in this process exclude each other too.
    const owner = `${settings.workerId}#${++this.#handlings}`;
    // A handling of this execution that just finished here may still be giving its lease back
    // (its slot frees once its outcome is durable): wait for that rather than find it held.
    await this.#releasing.get(executionKey(message));
    const claim = await claimExecution(store, message.executionId, {
      ...scope,
      owner,
      ttlMs: settings.leaseTtlMs,
    });
    if (claim.kind === 'held') {
      this.#throwIfAbandoned(begun, message.executionId);
      return this.onLeaseConflict(message);
    }
    if (claim.kind === 'absent') return { kind: 'unknown_execution' };
    const { lease, state } = claim;
    handling.lease = lease;
    this.#throwIfAbandoned(begun, message.executionId);
    if (isTerminal(state.status) && !(message.kind === 'retry' && state.status === 'error'))
      return { kind: 'already_terminal' };
    const writer = new FencedWriter(this.deps, lease, state);
    writer.deliveryCount = delivery.deliveryCount;
    handling.writer = writer;
    // A cancel needs no definition: one this worker cannot load (a plugin it lacks) or that is
    // gone must not keep an execution from being cancelled.
    const cancelling =
      message.kind === 'cancel' || (claim.cancelRequested && message.kind !== 'retry');
    const flow = await this.deps.resolver
      .byHash(state.flowHash, { tenantId: state.tenantId })
      .catch((error: unknown) => {
        if (cancelling) return null;
        throw error;
      });
    this.#throwIfAbandoned(begun, message.executionId);
    if (flow === null)
      return writer.cancel(
        (message.kind === 'cancel' ? message.reason : undefined) ?? 'cancelled by request',
      );
    const keeper = this.#keeper(lease, delivery);
    const driver = new ExecutionDriver(this.deps, flow, keeper, writer);
    const active = executionKey(message);
    this.active.set(active, keeper);
    try {
      // The claim already read the cancel flag with the lease: no second round trip.
      if (message.kind !== 'cancel' && claim.cancelRequested) keeper.markCancelRequested();
      return await this.apply(message, driver);
    } finally {
      driver.close();
      keeper.stop();
      this.active.delete(active);
    }
  }

  private async apply(message: TaskMessage, driver: ExecutionDriver): Promise<HandlingResult> {
    const state = driver.state;
    if (driver.keeper.cancelRequested && message.kind !== 'retry')
      return driver.writer.cancel('cancelled by request');
    let result: HandlingResult;
    switch (message.kind) {
      case 'cancel':
        return driver.writer.cancel(message.reason ?? 'cancelled by request');
      case 'retry':
        result = await this.retry(message, driver);
        break;
      case 'event':
        result = await this.event(message, driver);
        break;
      case 'timer':
        result = await this.timer(message, driver);
        break;
      case 'run':
        return this.run(driver, state);
    }
    // A message with nothing left to do still leaves the execution able to go on: a `running`
    // one nobody holds lost its worker mid-way (whoever gets the lease continues it); a
    // `suspended` one may have lost its timer (saved, then the enqueue failed or the worker
    // died, and this is the redelivery of the message that suspended it): `run` re-arms it.
    return result.kind === 'no_op' &&
      (driver.state.status === 'running' || driver.state.status === 'suspended')
      ? this.run(driver, driver.state)
      : result;
  }

  private async run(driver: ExecutionDriver, state: ExecutionState): Promise<HandlingResult> {
    if (state.status === 'suspended') {
      // Its timer may never have been armed (a crash between the save and the enqueue).
      await this.deps.timers.arm(state, driver.flow);
      const early = inboxEventFor(state);
      return early ? driver.deliverFromInbox(early) : { kind: 'no_op' };
    }
    const nextNode = driver.nextNodeId;
    // A node whose visit was started this many times without finishing keeps killing its worker.
    if (
      nextNode !== null &&
      unfinishedStarts(state, nextNode) >= this.deps.settings.maxNodeAttempts
    )
      return { kind: 'crash_loop', nodeId: nextNode };
    const running = toRunning(state, nextNode, this.#now());
    // A fresh execution whose first step runs no host code: that step's checkpoint also
    // records the move to `running`, one save fewer per execution.
    if (driver.freshStepIsInert) driver.writer.stage(running);
    else await driver.writer.persist(running, []);
    return driver.run();
  }

  private async retry(
    message: Extract<TaskMessage, { kind: 'retry' }>,
    driver: ExecutionDriver,
  ): Promise<HandlingResult> {
    const state = driver.state;
    if (state.status !== 'error' || state.manualRetries >= this.deps.settings.maxManualRetries)
      return { kind: 'no_op' };
    // Asked for the failure this execution had when `retriesSeen` retries were made: another
    // request for that same failure (a retried or double-clicked retry) already re-ran it, and
    // must not re-run it again, nor spend the execution's retries.
    const seen = message.retriesSeen;
    if (seen !== undefined && seen !== state.manualRetries) return { kind: 'no_op' };
    // It failed while waiting (the event could not be delivered or stored): wait again, timers
    // re-armed and the inbox looked at, as for any suspended execution.
    if (pendingWait(state) !== null) {
      await driver.writer.persist(toRewaiting(state, this.#now()), []);
      return this.run(driver, driver.state);
    }
    const nextNode = driver.nextNodeId;
    await driver.writer.persist(toRetried(state, nextNode, this.#now()), []);
    return driver.run();
  }

  private async event(message: EventMessage, driver: ExecutionDriver): Promise<HandlingResult> {
    const { eventId } = message;
    const { type } = message;
    if (driver.state.appliedEventIds.includes(eventId)) return { kind: 'no_op' }; // a repeated event id is applied once
    if (isDeliverable(driver.state, type, message.data)) {
      return driver.resume('event', envelope(eventId, type, message.data, driver.state.waiting!), {
        eventId,
      });
    }
    return driver.writer.keepInInbox({
      eventId,
      type,
      data: message.data ?? null,
      receivedAt: this.#now().toISOString(),
    });
  }

  private async timer(message: TimerMessage, driver: ExecutionDriver): Promise<HandlingResult> {
    const resume = this.deps.timers.fired(message, driver.state, driver.flow);
    if (resume === null) return { kind: 'no_op' };
    return resume.type === 'timeout'
      ? driver.resume('timeout', null, {})
      : driver.resume('event', resume.data, { eventId: message.timerId });
  }

  private async onLeaseConflict(message: TaskMessage): Promise<HandlingResult> {
    this.deps.metrics?.leaseConflicts.inc();
    if (message.kind === 'cancel') {
      // The holder may be mid-node: the marker reaches it between nodes (and its node's signal here).
      this.active.get(executionKey(message))?.markCancelRequested();
      await this.deps.store.requestCancel(message.executionId, { tenantId: message.tenantId });
    }
    return { kind: 'lease_conflict' };
  }

  /** Carries out the decision: the state write first (it must be durable), then the message. */
  private async act(
    delivery: Delivery,
    decided: Decision,
    handled: HandlingResult,
    handling: Handling,
    outcomeDurable?: () => void,
  ): Promise<void> {
    let decision = decided;
    let result = handled;
    const { metrics, log } = this.deps;
    const kind = delivery.parsed.ok ? delivery.parsed.message.kind : 'malformed';
    if (decision.write) {
      try {
        const outcome = await this.writeDecision(
          decision.write.errorCode,
          result,
          handling,
          delivery,
        );
        if (outcome === 'already_terminal') {
          result = { kind: 'already_terminal' };
          decision = decide(result, {
            deliveryCount: delivery.deliveryCount,
            maxDeliveries: this.deps.settings.maxDeliveries,
          });
        }
      } catch (error) {
        // The outcome is not durable: leave the message for the next delivery.
        log.warn(
          { messageId: delivery.id, err: error },
          'could not record the outcome; leaving the message for redelivery',
        );
        metrics?.messages.inc({ outcome: 'leave', kind });
        return;
      }
    }
    // The outcome is durable: the lease can go while the message is settled (different keys).
    outcomeDurable?.();
    const released = this.release(handling);
    try {
      await settleMessage(this.deps, delivery, decision, result);
    } finally {
      // Also when settling failed (the queue is down): a drain waits for the release too.
      await released;
    }
    metrics?.messages.inc({ outcome: decision.action, kind });
    log.debug(
      {
        messageId: delivery.id,
        kind,
        result: result.kind,
        action: decision.action,
        deliveryCount: delivery.deliveryCount,
      },
      'message handled',
    );
  }

  private async writeDecision(
    errorCode: ExecutionErrorCode,
    result: HandlingResult,
    handling: Handling,
    delivery: Delivery,
  ): Promise<'written' | 'already_terminal'> {
    const writer = handling.writer ?? (await this.writerForOutcome(delivery, handling));
    if (!writer) throw new Error('the execution could not be leased to record its outcome');
    if (writer.outcomeUnknown) {
      const stored = await writer.reread();
      // That save was applied and ended the execution (or it is gone): its outcome stands.
      if (!stored || isTerminal(stored.status)) return 'already_terminal';
    }
    await writer.writeError(errorRecord(errorCode, result, writer));
    return 'written';
  }

  /** Failures before the execution was loaded (e.g. the store was down): lease and load again. */
  private async writerForOutcome(
    delivery: Delivery,
    handling: Handling,
  ): Promise<FencedWriter | null> {
    if (!delivery.parsed.ok) return null;
    const { executionId, tenantId } = delivery.parsed.message;
    const { store, settings } = this.deps;
    handling.lease ??= await store.acquireLease(executionId, {
      tenantId,
      owner: `${settings.workerId}#${++this.#handlings}`,
      ttlMs: settings.leaseTtlMs,
    });
    if (!handling.lease) return null;
    const state = await store.load(executionId, { tenantId });
    if (!state || isTerminal(state.status)) return null;
    handling.writer = new FencedWriter(this.deps, handling.lease, state);
    return handling.writer;
  }

  /** Renews `lease` and the delivery's invisibility while the handling works. */
  #keeper(lease: Lease, delivery: Delivery): LeaseKeeper {
    const { store, queue, settings } = this.deps;
    const held = heldWork(store, queue, lease, delivery, settings.workerId, settings.leaseTtlMs);
    return new LeaseKeeper(held, {
      leaseTtlMs: settings.leaseTtlMs,
      visibilityTimeoutMs: settings.visibilityTimeoutMs,
      log: this.deps.log,
      clock: this.deps.clock,
    });
  }

  /** Gives the lease back (once; idempotent by owner + generation). */
  private async release(handling: Handling): Promise<void> {
    const { lease } = handling;
    if (!lease) return;
    handling.lease = null;
    const key = executionKey(lease);
    const released = this.deps.store
      .releaseLease(lease.executionId, {
        tenantId: lease.tenantId,
        owner: lease.owner,
        generation: lease.generation,
      })
      .catch(() => undefined);
    this.#releasing.set(key, released);
    await released;
    if (this.#releasing.get(key) === released) this.#releasing.delete(key);
    const status = handling.writer?.state.status;
    if (status && isTerminal(status)) this.deps.metrics?.executions.inc({ status });
  }
}

/** One execution of one tenant, as a map key (execution ids are unique per tenant only). */
function executionKey(of: { tenantId: string; executionId: string }): string {
  return `${of.tenantId}\u0000${of.executionId}`;
}
