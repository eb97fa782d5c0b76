import type { LargestEntry } from '../../errors.js';
import type { ExecutionState } from '../../state/execution-state.js';
import { checkTotalSize, encodeCheckpoint, type EncodedCheckpoint } from '../checkpoint-parts.js';
import type { SaveOptions } from '../execution-store.js';
import { executionRow, type ExecutionRow } from './execution-row.js';
import type { ResolvedStoreOptions } from './store-options.js';
import { assertStorableKeys } from './stored-text.js';

/** Everything a store writes for one `save`, encoded before any I/O so a bad value writes nothing. */
export interface SavePlan {
  row: ExecutionRow;
  checkpoint: EncodedCheckpoint;
  /** Ids named in `changedNodes` that are no longer in `$NODE`: their stored results go. */
  removedNodeIds: string[];
  /** Bytes of the node results in `checkpoint.nodes`. */
  writtenNodeBytes: number;
  /** The required lease generation, or null for an unfenced save. */
  fence: number | null;
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
  const changed = options.changedNodes === undefined ? undefined : unique(options.changedNodes);
  const checkpoint = encodeCheckpoint(state, changed, store.maxStateBytes);
  assertStorableKeys(state);
  const writtenNodeBytes = nodeBytes(checkpoint);
  options.onEncoded?.(checkpoint.headerBytes + writtenNodeBytes);
  return {
    row: executionRow(state, checkpoint.header, checkpoint.headerBytes, nowMs, store.terminalTtlMs),
    checkpoint,
    removedNodeIds: removedIds(changed, checkpoint),
    writtenNodeBytes,
    fence,
  };
}

/** The ids once each, in order (the usual checkpoint names one or two: no Set for those). */
function unique(ids: readonly string[]): string[] {
  if (ids.length < 2 || (ids.length === 2 && ids[0] !== ids[1])) return [...ids];
  return [...new Set(ids)];
}

/** Changed ids with no result to write: `nodes` holds the others, in the same order. */
function removedIds(
  changed: readonly string[] | undefined,
  checkpoint: EncodedCheckpoint,
): string[] {
  if (changed === undefined || changed.length === checkpoint.nodes.length) return [];
  const written = new Set(checkpoint.nodes.map((n) => n.nodeId));
  return changed.filter((id) => !written.has(id));
}

function nodeBytes(checkpoint: EncodedCheckpoint): number {
  let sum = 0;
  for (const node of checkpoint.nodes) sum += node.bytes;
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
  return {
    ...plan,
    checkpoint,
    removedNodeIds: [],
    writtenNodeBytes: nodeBytes(checkpoint),
  };
}

/**
 * Incremental saves: the stored total is rebuilt from the node sizes already kept. Called only
 * once the running total is over the limit, to name the three largest entries; always throws
 * StateTooLargeError (via checkTotalSize).
 */
export function rejectOversized(
  plan: SavePlan,
  stored: Iterable<readonly [string, number]>,
  maxStateBytes: number,
): never {
  const sizes = new Map<string, number>();
  for (const [nodeId, bytes] of stored) sizes.set(nodeId, bytes);
  for (const id of plan.removedNodeIds) sizes.delete(id);
  for (const node of plan.checkpoint.nodes) sizes.set(node.nodeId, node.bytes);
  const entries: LargestEntry[] = [...sizes].map(([id, bytes]) => ({ path: `$NODE.${id}`, bytes }));
  checkTotalSize(plan.row.headerBytes, entries, maxStateBytes);
  // Only reachable if the stored sizes changed under us; the caller's total said otherwise.
  throw new Error('rejectOversized called for a state within the limit');
}

/** The stored total of a full rewrite: header plus every node result. */
export function fullRewriteBytes(plan: SavePlan): number {
  return plan.row.headerBytes + plan.writtenNodeBytes;
}
