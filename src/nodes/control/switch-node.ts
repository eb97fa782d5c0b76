import { z } from 'zod';
import type { Condition } from '../../expression/condition.js';
import { builtinNode, pick } from '../builtin-node.js';

interface SwitchBranch {
  name: string | null;
  target: string | null;
  condition: Condition | null;
  priority: number;
  isDefault: boolean;
}

/** A target written as a YAML number (node ids may be numbers, §2.1) is its string. */
const target = z.union([z.string(), z.number().transform(String)]);

const branchShape = z.looseObject({
  name: target.nullable().optional(),
  condition: z.unknown().optional(),
  priority: z.number().int().nullable().optional(),
  label: z.unknown().optional(),
  desc: z.unknown().optional(),
  next: target.nullable().optional(),
  isDefault: z.boolean().nullable().optional(),
  is_default: z.boolean().nullable().optional(),
});

/**
 * docs/flow-format.md §3.4: branches tried by descending priority (ties keep document order); the first
 * whose condition matches wins, else the first default in document order; the result is the
 * winner's target.
 */
export const switchNode = builtinNode({
  type: 'switch',
  inert: true,
  branching: true,
  schema: z.looseObject({
    branches: z.array(branchShape).optional(),
    outputType: z.unknown().optional(),
  }),
  load(raw, loader) {
    const branches: SwitchBranch[] = (raw.branches ?? []).map((b, i) => ({
      name: b.name ?? null,
      // An empty `next` is unset, as the original's truth test has it.
      target: b.next || b.name || null,
      condition: loader.condition(b.condition, `branches[${i}].condition`),
      priority: b.priority ?? 0,
      isDefault: pick(b.isDefault, b.is_default) ?? false,
    }));
    // Array.prototype.sort is stable: ties keep document order.
    const ordered = [...branches].sort((a, b) => b.priority - a.priority);
    return { branches, ordered };
  },
  targets: (def) =>
    def.branches.flatMap((b) =>
      b.target ? [{ to: b.target, label: b.isDefault ? 'default' : b.name }] : [],
    ),
  async run(ctx) {
    for (const branch of ctx.def.ordered) {
      if (branch.condition && (await ctx.matches(branch.condition))) return branch.target;
    }
    // The first default in document order (the original's loop), whatever the priorities.
    return ctx.def.branches.find((b) => b.isDefault)?.target ?? null;
  },
});
