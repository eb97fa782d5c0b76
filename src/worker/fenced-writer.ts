import type { ErrorRecord } from '../errors/plaita-error.js';
import type { ExecutionState, InboxEvent } from '../state/execution-state.js';
import type { Lease } from '../store/execution-store.js';
import type { HandlingResult } from './decide.js';
import { isStoredAsEntries } from '../store/checkpoint-parts.js';
import { changedTimings } from './changed-timings.js';
import { toCancelled, toError } from './state-transitions.js';
import { waitVisit } from '../engine/wait-timer.js';
import { checkpointInput, hasCheckpointInput, lastNode } from '../state/checkpoint-context.js';
import type { WorkerDeps } from './worker-deps.js';

/**
 * Every state a handling writes goes through here: saved under the lease's fencing generation
 * (a worker that lost its lease cannot overwrite its successor), one version after the last.
 * It needs no flow, so the outcome of a message whose flow cannot be loaded is still written.
 */
export class FencedWriter {
  /** The node whose result could not be stored, when a checkpoint was refused. */
  failedNode: string | null = null;
  /** For logs: which delivery of the message this work is. */
  deliveryCount = 1;
  /** `#stored` is in the entry layout: a save may name what changed against it. */
  #diffable: boolean;
  #storedUnknown = false;
  /** What the last save stored (first: what was loaded); `state` may be ahead of it, staged. */
  #stored: ExecutionState;

  constructor(
    private readonly deps: WorkerDeps,
    readonly lease: Lease,
    public state: ExecutionState,
  ) {
    this.#diffable = isStoredAsEntries(state);
    this.#stored = state;
  }

  /**
   * `$NODE` entries changed by staged states and not saved yet (null: any may have): the next
   * save writes them with its own.
   */
  #unsaved: Set<string> | null = new Set();
  /** When the last save was stored (performance.now()), or this writer was made. */
  #savedAt = performance.now();

  /**
   * Adopts `next` without saving it: the next save writes it with that save's own change. For
   * a transition that need not be durable by itself: an inert node's start (NodeType.inert), a
   * replayable node's result (docs/durable-contract.md §5 step 5).
   */
  stage(next: ExecutionState, changedNodes: readonly string[] | null = []): void {
    this.state = next;
    if (changedNodes === null) this.#unsaved = null;
    else if (this.#unsaved !== null) for (const id of changedNodes) this.#unsaved.add(id);
  }

  /** States were staged since the last save: a save now would also write their changes. */
  get hasStaged(): boolean {
    return this.state !== this.#stored;
  }

  /** Drops what was staged since the last save: the state is the stored one again. */
  unstage(): void {
    this.state = this.#stored;
    this.#unsaved = new Set();
  }

  /** Milliseconds since the last save (or since this writer was made). */
  get msSinceSave(): number {
    return performance.now() - this.#savedAt;
  }

  now(): Date {
    return new Date(this.deps.clock.now());
  }

  readonly #observeBytes = (bytes: number): void =>
    this.deps.metrics?.checkpointBytes.observe(bytes);

  /**
   * Fenced save; `changedNodes` null = rewrite the whole context. A save that begins a wait
   * arms its timer once it is stored (a crash in between: `run` on the suspended execution
   * arms it again).
   */
  async persist(next: ExecutionState, changedNodes: readonly string[] | null): Promise<void> {
    const previous = this.state;
    const state = { ...next, version: this.#stored.version + 1 };
    const started = performance.now();
    const changed = withUnsaved(changedNodes, this.#unsaved);
    // After a failed save what is stored is unknown (a timeout may come after the server
    // applied it), so nothing can be said unchanged: the next save rewrites the whole state.
    const incremental = changed !== null && !this.#storedUnknown;
    try {
      await this.deps.store.save(state, {
        fence: { generation: this.lease.generation },
        ...(incremental ? { changedNodes: changed } : {}),
        // Not against a state loaded from a record of the layout before timing and input
        // entries (both in its header): its first save writes them out whole.
        ...(incremental && this.#diffable
          ? {
              changedTimings: changedTimings(this.#stored.timings, state.timings),
              unchangedInput: sameInput(this.#stored, state),
            }
          : {}),
        ...(this.deps.metrics ? { onEncoded: this.#observeBytes } : {}),
      });
    } catch (error) {
      this.#storedUnknown = true;
      throw error;
    }
    this.#storedUnknown = false;
    this.#unsaved = new Set();
    this.#savedAt = performance.now();
    const ms = this.#savedAt - started;
    this.deps.metrics?.checkpointSeconds.observe(ms / 1000);
    // An execution ending in error is an operator's business at the default level (warn), with
    // what failed and where; every checkpoint is there at info. Execution ids are per tenant.
    const failed = state.status === 'error' && state.error !== null;
    if (failed || this.deps.log.isLevelEnabled?.('info') !== false) {
      const fields = {
        executionId: state.executionId,
        tenantId: state.tenantId,
        flowId: state.flowId,
        status: state.status,
        node: state.error?.node ?? lastNode(state.context),
        version: state.version,
        deliveryCount: this.deliveryCount,
        checkpointMs: +ms.toFixed(2),
      };
      if (failed)
        this.deps.log.warn(
          { ...fields, errorCode: state.error!.code, error: state.error!.message },
          'execution failed',
        );
      else this.deps.log.info(fields, 'execution checkpoint');
    }
    this.state = state;
    this.#stored = state;
    this.#diffable = true;
    if (beginsWait(previous, state)) await this.deps.timers.arm(state, null);
  }

  /** The last save failed: it may still have been applied (a timeout after the server wrote it). */
  get outcomeUnknown(): boolean {
    return this.#storedUnknown;
  }

  /**
   * Reads what is stored now and writes on from it: after a save of unknown outcome, an error
   * written from the older state would overwrite that save, a completed record included. Null
   * when the execution is gone.
   */
  async reread(): Promise<ExecutionState | null> {
    const { executionId, tenantId } = this.state;
    const stored = await this.deps.store.load(executionId, { tenantId });
    if (stored) {
      this.state = stored;
      this.#stored = stored;
      this.#diffable = isStoredAsEntries(stored);
      this.#storedUnknown = false;
      this.#unsaved = new Set();
    }
    return stored;
  }

  /** Writes a terminal error decided by the decision table (context: the last good checkpoint). */
  async writeError(error: ErrorRecord): Promise<void> {
    await this.cancelTimers();
    await this.persist(toError(this.state, error, this.now()), []);
  }

  async cancel(reason: string): Promise<HandlingResult> {
    await this.cancelTimers();
    await this.persist(toCancelled(this.state, reason, this.now()), []);
    return { kind: 'cancelled' };
  }

  /** Keeps an event that arrived before its node suspended (or for another node). */
  async keepInInbox(event: InboxEvent): Promise<HandlingResult> {
    if (this.state.inbox.some((e) => e.eventId === event.eventId)) return { kind: 'no_op' };
    await this.persist(
      { ...this.state, inbox: [...this.state.inbox, event], updatedAt: this.now().toISOString() },
      [],
    );
    return { kind: 'no_op' };
  }

  /** Withdraws the timer of the current wait (a missing one is fine). */
  cancelTimers(): Promise<void> {
    return this.deps.timers.cancel(this.state);
  }
}

/** A save's changed entries with those staged before it (null: write them all). */
function withUnsaved(
  changed: readonly string[] | null,
  unsaved: ReadonlySet<string> | null,
): readonly string[] | null {
  if (changed === null || unsaved === null) return null;
  if (unsaved.size === 0) return changed;
  return [...new Set([...unsaved, ...changed])];
}

/** `next` waits where `previous` did not: another node, another visit, or no wait at all. */
function beginsWait(previous: ExecutionState, next: ExecutionState): boolean {
  const waiting = next.waiting;
  if (next.status !== 'suspended' || !waiting?.dueAt) return false;
  const before = previous.status === 'suspended' ? previous.waiting : null;
  return (
    before?.nodeId !== waiting.nodeId || waitVisit(previous, before) !== waitVisit(next, waiting)
  );
}

/** The engine never changes a context value in place (a mutating `$F` call detaches it first). */
function sameInput(saved: ExecutionState, next: ExecutionState): boolean {
  const had = hasCheckpointInput(saved.context);
  return (
    had === hasCheckpointInput(next.context) &&
    checkpointInput(saved.context) === checkpointInput(next.context)
  );
}
