import type { FlowHooks, HookEventBase } from '../../engine/hooks.js';
import { toTaggedUnchecked } from '../../state/to-tagged.js';

export type TraceStatus = 'done' | 'pinned' | 'failed' | 'waiting';

/** One node run of a dry-run, in the order they ran (a node in a loop appears once per run). */
export interface TraceEntry {
  nodeId: string;
  type: string | null;
  status: TraceStatus;
  output: unknown;
  durationMs: number;
}

/** A dry-run answer stays bounded whatever loops the flow runs. */
export const MAX_TRACE_ENTRIES = 1000;

/**
 * Lifecycle hooks (docs/flow-format.md §8) that record the top-level execution's node runs: child flows
 * report through the same hooks with `parentExecutionId` and are left out (their node runs
 * are part of the node that holds them).
 */
export class DryRunTrace implements FlowHooks {
  readonly entries: TraceEntry[] = [];
  truncated = false;
  readonly #startedAt = new Map<string, number>();

  constructor(private readonly pinned: Readonly<Record<string, unknown>>) {}

  onNodeStart(event: HookEventBase & { node: string }): void {
    if (event.parentExecutionId === undefined) this.#startedAt.set(event.node, performance.now());
  }

  onNodeEnd(event: HookEventBase & { node: string; result?: unknown; error?: unknown }): void {
    if (event.parentExecutionId !== undefined) return;
    if (this.entries.length >= MAX_TRACE_ENTRIES) {
      this.truncated = true;
      return;
    }
    const started = this.#startedAt.get(event.node) ?? performance.now();
    const failed = event.error !== undefined;
    this.entries.push({
      nodeId: event.node,
      type: event.flow.nodesById.get(event.node)?.def.type ?? null,
      status: failed ? 'failed' : Object.hasOwn(this.pinned, event.node) ? 'pinned' : 'done',
      output: failed ? null : outputView(event.result),
      durationMs: Math.round(performance.now() - started),
    });
  }

  /** The suspending node the run stopped at. */
  markWaiting(nodeId: string): void {
    const entry = this.entries.findLast((e) => e.nodeId === nodeId);
    if (entry) entry.status = 'waiting';
  }
}

/**
 * A value as the API shows it (json-view.ts): plain JSON as itself, Date/Map/BigInt… tagged.
 * Unlike a stored value, a dry-run output was never through the codec: one that cannot be
 * tagged (a function, a cycle) is described instead of failing the answer.
 */
export function outputView(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return toTaggedUnchecked(value);
  } catch (error) {
    return `[not serializable: ${error instanceof Error ? error.message : String(error)}]`;
  }
}
