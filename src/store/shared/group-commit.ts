import type { ExecutionState } from '../../state/execution-state.js';
import { type ItemFailure, TickBatch } from '../../util/tick-batch.js';
import type { SaveOptions } from '../execution-store.js';
import { planSave, type SavePlan } from './save-plan.js';
import type { ResolvedStoreOptions } from './store-options.js';

/** A save planned (encoded, validated) before any I/O: what can fail for good fails here. */
export interface PlannedSave {
  state: ExecutionState;
  plan: SavePlan;
  now: number;
}

/** One save's answer in a batch: done, its own failure, or its own pending write. */
export type SaveAnswer = ItemFailure | undefined | Promise<void>;

/** Most saves one batch holds: bounds how long a batch holds locks, and its latency. */
const GROUP_COMMIT_MAX = 64;

/**
 * Group commit of a store's saves: each is planned at once, then written with the other saves
 * of this turn of the event loop by the store's `write` (one transaction, one statement), which
 * answers each save on its own. A save resolves only once its own write is committed.
 */
export class GroupCommit {
  readonly #batches: TickBatch<PlannedSave>;

  constructor(
    private readonly options: ResolvedStoreOptions,
    write: (batch: readonly PlannedSave[]) => Promise<SaveAnswer[]>,
  ) {
    this.#batches = new TickBatch((_, batch) => write(batch), {
      maxItems: GROUP_COMMIT_MAX,
      flushOn: 'turn',
    });
  }

  /** Sends the saves waiting for the end of this turn now; resolves once every write settled. */
  settle(): Promise<void> {
    return this.#batches.settle();
  }

  /** Rejects (never throws) when the state cannot be stored, before any I/O. */
  async save(state: ExecutionState, options: SaveOptions = {}): Promise<void> {
    const now = this.options.clock.now();
    const plan = planSave(state, options, this.options, now);
    return this.#batches.add('', { state, plan, now });
  }
}
