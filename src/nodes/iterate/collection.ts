import { z } from 'zod';
import type { Flow } from '../../flow/flow.js';
import type { FlowLoader } from '../../flow/flow-loader.js';
import type { NodeContext } from '../../flow/node-type.js';
import { pick } from '../builtin-node.js';
import { CollectionTypeError } from '../../errors/node-errors.js';

/** docs/flow-format.md §3.9: array items; a string's characters; an object's keys; anything else fails. */
export function iterableItems(collection: unknown): unknown[] {
  if (Array.isArray(collection)) return collection;
  if (typeof collection === 'string') return Array.from(collection);
  if (
    collection !== null &&
    typeof collection === 'object' &&
    Object.getPrototypeOf(collection) === Object.prototype
  ) {
    return Object.keys(collection);
  }
  throw new CollectionTypeError(
    `collection must be an array, a string or an object, got ${collection === null ? 'null' : typeof collection}`,
  );
}

/** The raw fields every collection node shares. */
export const collectionShape = {
  collection: z.unknown().optional(),
  childFlow: z.unknown().optional(),
  child_flow: z.unknown().optional(),
};

export function loadChildFlow(
  raw: { childFlow?: unknown; child_flow?: unknown },
  loader: FlowLoader,
): Flow | null {
  return loader.requiredChildFlow(
    pick(raw.childFlow, raw.child_flow),
    raw.childFlow === undefined && raw.child_flow !== undefined ? 'child_flow' : 'childFlow',
  );
}

export async function evaluateItems(ctx: NodeContext<{ collection: unknown }>): Promise<unknown[]> {
  return iterableItems(await ctx.evaluate(ctx.def.collection));
}

/** Loader guarantees a child flow or a definition error: a null here is an engine bug. */
export function childFlowOf(def: { childFlow: Flow | null }): Flow {
  if (!def.childFlow) throw new Error('child flow missing after load');
  return def.childFlow;
}
