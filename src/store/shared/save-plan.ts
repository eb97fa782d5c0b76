import type { LargestEntry } from '../../errors/state-errors.js';
import type { ExecutionState } from '../../state/execution-state.js';
import { checkTotalSize, encodeCheckpoint, type EncodedCheckpoint } from '../checkpoint-parts.js';
import { entryPath } from './node-key.js';
import type { SaveOptions } from '../execution-store.js';
import { executionRow, type ExecutionRow } from './execution-row.js';
import type { ResolvedStoreOptions } from './store-options.js';
import { assertStorableKeys } from './stored-text.js';

/** Everything a store writes for one `save`, encoded before any I/O so a bad value writes nothing. */
export interface SavePlan {
  row: ExecutionRow;
  checkpoint: EncodedCheckpoint;
  /** Bytes of the entries in `checkpoint.entries`. */
  writtenEntryBytes: number;
  /** The required lease generation, or null for an unfenced save. */
  fence: number | null;
  /** Written only if no live record exists (SaveOptions.createOnly); always a full rewrite. */
  createOnly: boolean;
}

export function planSave(
  state: ExecutionState,
  options: SaveOptions,
  store: ResolvedStoreOptions,
  nowMs: number,
): SavePlan {
  const fence = options.fence?.generation ?? null;
  if (fence !== null && (!Number.isSafeInteger(fence) || fence < 0))
    throw new RangeError(`fence generation must be a non-negative integer, got ${String(fence)}`);
  const createOnly = options.createOnly === true;
  if (createOnly && (fence !== null || options.changedNodes !== undefined))
    throw new RangeError('a create-only save is unfenced and whole (no fence, no changedNodes)');
  const changed =
    options.changedNodes === undefined
      ? undefined
      : {
          nodes: unique(options.changedNodes),
          timings: options.changedTimings && unique(options.changedTimings),
          inputUnchanged: options.unchangedInput,
        };
  const checkpoint = encodeCheckpoint(state, changed, store.maxStateBytes);
  assertStorableKeys(state, checkpoint.entries);
  const writtenEntryBytes = entryBytes(checkpoint);
  options.onEncoded?.(checkpoint.headerBytes + writtenEntryBytes);
  return {
    row: executionRow(state, checkpoint.header, checkpoint.headerBytes, nowMs, store.terminalTtlMs),
    checkpoint,
    writtenEntryBytes,
    fence,
    createOnly,
  };
}

/** The ids once each, in order (the usual checkpoint names one or two: no Set for those). */
function unique(ids: readonly string[]): string[] {
  if (ids.length < 2 || (ids.length === 2 && ids[0] !== ids[1])) return [...ids];
  return [...new Set(ids)];
}

function entryBytes(checkpoint: EncodedCheckpoint): number {
  let sum = 0;
  for (const entry of checkpoint.entries) sum += entry.bytes;
  return sum;
}

/**
 * The same save as a full rewrite: used when `changedNodes` was given for an execution that is
 * not stored yet, because then there are no "unchanged" results to keep.
 */
export function asFullRewrite(
  state: ExecutionState,
  plan: SavePlan,
  store: ResolvedStoreOptions,
): SavePlan {
  if (plan.checkpoint.fullRewrite) return plan;
  const checkpoint = encodeCheckpoint(state, undefined, store.maxStateBytes);
  return { ...plan, checkpoint, writtenEntryBytes: entryBytes(checkpoint) };
}

/**
 * Incremental saves: the stored total is rebuilt from the entry sizes already kept (by stored
 * key). Called only once the running total is over the limit, to name the three largest
 * entries; always throws StateTooLargeError (via checkTotalSize).
 */
export function rejectOversized(
  plan: SavePlan,
  stored: Iterable<readonly [string, number]>,
  maxStateBytes: number,
): never {
  const sizes = new Map<string, number>();
  for (const [key, bytes] of stored) sizes.set(key, bytes);
  for (const key of plan.checkpoint.removedKeys) sizes.delete(key);
  for (const entry of plan.checkpoint.entries) sizes.set(entry.key, entry.bytes);
  const entries: LargestEntry[] = [...sizes].map(([key, bytes]) => ({
    path: entryPath(key),
    bytes,
  }));
  checkTotalSize(plan.row.headerBytes, entries, maxStateBytes);
  // Only reachable if the stored sizes changed under us; the caller's total said otherwise.
  throw new Error('rejectOversized called for a state within the limit');
}

/** The stored total of a full rewrite: header plus every entry. */
export function fullRewriteBytes(plan: SavePlan): number {
  return plan.row.headerBytes + plan.writtenEntryBytes;
}
