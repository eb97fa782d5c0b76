import type { RuntimeLimits } from '../../flow/runtime-limits.js';
import type { NodeContext, NodeType } from '../../flow/node-type.js';
import { NodeRegistry } from '../../nodes/node-registry.js';
import { silentLogger } from '../../util/logger.js';

export interface PinOptions {
  /** Node id → the output it gives instead of running (docs/http-api.md `pinned`). */
  pinned: Readonly<Record<string, unknown>>;
  /** Only the nodes of this execution are pinned: a child flow's node with the same id runs. */
  executionId: string;
  /**
   * `onlyNode`: the start node also writes every pinned output into `$NODE` (through the node
   * context's `set`), so the one node that runs next reads them as if their nodes had run.
   */
  seedAtStart: boolean;
}

/**
 * The host's registry with each node type wrapped for one dry-run: a pinned node is not run,
 * its given output is recorded as its result (hooks, `$NODE`, branching all as usual).
 * Everything else a type declares (schema, suspending, targets…) is kept.
 */
export function pinningRegistry(
  base: NodeRegistry,
  options: PinOptions,
  limits: Partial<RuntimeLimits>,
): NodeRegistry {
  const types = base.types().map((type) => pinning(base.get(type)!, options));
  // The dry-run's own limits: what the server lets a dry-run load (code backends) and do.
  return new NodeRegistry(types, { logger: silentLogger, limits });
}

function pinning(nodeType: NodeType, options: PinOptions): NodeType {
  const seeds = options.seedAtStart && nodeType.type === 'start';
  return {
    ...nodeType,
    run(ctx: NodeContext) {
      const top = ctx.executionId === options.executionId;
      const result =
        top && Object.hasOwn(options.pinned, ctx.nodeId)
          ? options.pinned[ctx.nodeId]
          : nodeType.run(ctx);
      if (top && seeds) seed(ctx, options.pinned);
      return result;
    },
  };
}

function seed(ctx: NodeContext, pinned: Readonly<Record<string, unknown>>): void {
  const results = ctx.get('$NODE');
  ctx.set('$NODE', { ...(typeof results === 'object' ? results : {}), ...pinned });
}
