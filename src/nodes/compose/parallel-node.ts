import { z } from 'zod';
import type { Condition } from '../../expression/condition.js';
import type { Flow } from '../../flow/flow.js';
import { builtinNode, pick } from '../builtin-node.js';

interface ParallelBranch {
  name: string;
  flow: Flow | null;
  hasInput: boolean;
  input: unknown;
  condition: Condition | null;
}

const branchShape = z.looseObject({
  name: z.string(),
  flow: z.unknown().optional(),
  input: z.unknown().optional(),
  condition: z.unknown().optional(),
  priority: z.number().int().nullable().optional(),
  next: z.string().nullable().optional(),
  isDefault: z.boolean().nullable().optional(),
});

/**
 * flows.md §3.14: selected branches start together as child executions. Join branches are
 * awaited (a failure becomes a sentinel slot, not a node error); the rest run in the
 * background, best effort, failures only logged.
 */
export const parallelNode = builtinNode({
  type: 'parallel',
  schema: z.looseObject({
    branches: z.array(branchShape).optional(),
    joinBranches: z.array(z.string()).nullable().optional(),
    join_branches: z.array(z.string()).nullable().optional(),
    isConditional: z.boolean().optional(),
    is_conditional: z.boolean().optional(),
    mode: z
      .enum(['thread', 'process', 'coroutine'], {
        error: () => 'expected thread | process | coroutine',
      })
      .optional(),
  }),
  load(raw, loader) {
    const branches: ParallelBranch[] = (raw.branches ?? []).map((b, i) => ({
      name: b.name,
      flow: loader.requiredChildFlow(b.flow, `branches[${i}].flow`),
      hasInput: b.input !== undefined,
      input: b.input ?? null,
      condition: loader.condition(b.condition, `branches[${i}].condition`),
    }));
    return {
      branches,
      joinBranches: pick(raw.joinBranches, raw.join_branches) ?? [],
      isConditional: pick(raw.isConditional, raw.is_conditional) ?? false,
    };
  },
  async run(ctx) {
    const { branches, joinBranches, isConditional } = ctx.def;
    const selected: ParallelBranch[] = [];
    for (const branch of branches) {
      if (!isConditional || branch.condition === null || (await ctx.matches(branch.condition)))
        selected.push(branch);
    }
    const running = new Map<string, Promise<unknown>>();
    for (const branch of selected) {
      const input = branch.hasInput ? await ctx.evaluate(branch.input) : ctx.input;
      running.set(branch.name, ctx.runChild(branch.flow!, input, branch.name));
    }
    const joined = new Set(joinBranches);
    for (const [name, promise] of running) {
      if (!joined.has(name)) {
        promise.catch((error: unknown) =>
          ctx.log.warn({ branch: name, err: error }, 'background parallel branch failed'),
        );
      }
    }
    const result: Record<string, unknown> = {};
    for (const branch of selected) {
      if (!joined.has(branch.name)) continue;
      try {
        result[branch.name] = await running.get(branch.name);
      } catch (error) {
        result[branch.name] = {
          __parallel_error__: error instanceof Error ? error.message : String(error),
          __branch__: branch.name,
        };
      }
    }
    return result;
  },
});
