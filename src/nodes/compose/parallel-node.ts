import { z } from 'zod';
import type { Condition } from '../../expression/condition.js';
import type { Flow } from '../../flow/flow.js';
import type { Logger } from '../../util/logger.js';
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
 * docs/flow-format.md §3.14: selected branches start together as child executions. Join branches are
 * awaited (a failure becomes a sentinel slot, not a node error); the rest run in the
 * background, best effort, failures only logged.
 */
type BranchOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function settle(work: Promise<unknown>): Promise<BranchOutcome> {
  return work.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function logBackgroundFailure(log: Logger, branch: string, outcome: BranchOutcome): void {
  if (!outcome.ok) log.warn({ branch, err: outcome.error }, 'background parallel branch failed');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const parallelNode = builtinNode({
  type: 'parallel',
  runsOnlyChildren: true,
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
    // Every branch promise gets its handler the moment it exists: a join branch that fails
    // while an earlier one is still awaited must never become an unhandled rejection.
    const joined = new Set(joinBranches);
    const running = new Map<string, Promise<BranchOutcome>>();
    for (const branch of selected) {
      // The branch's input is part of the branch (as in the original): an input that fails to
      // evaluate fails that branch alone, never the node.
      const outcome = settle(
        (async () => {
          const input = branch.hasInput ? await ctx.evaluate(branch.input) : ctx.input;
          return ctx.runChild(branch.flow!, input, branch.name);
        })(),
      );
      if (joined.has(branch.name)) running.set(branch.name, outcome);
      else void outcome.then((o) => logBackgroundFailure(ctx.log, branch.name, o));
    }
    const result: Record<string, unknown> = {};
    for (const [name, outcome] of running) {
      const settled = await outcome;
      result[name] = settled.ok
        ? settled.value
        : { __parallel_error__: errorText(settled.error), __branch__: name };
    }
    return result;
  },
});
