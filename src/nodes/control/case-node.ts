import { z } from 'zod';
import type { Condition } from '../../expression/condition.js';
import { builtinNode } from '../builtin-node.js';

const caseShape = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  value: z.unknown().optional(),
  name: z.string().nullable().optional(),
});

/** docs/flow-format.md §3.6: the first case whose value equals the target wins; no match → `default`. */
export const caseNode = builtinNode({
  type: 'case',
  inert: true,
  branching: true,
  schema: z.looseObject({
    target: z.unknown().optional(),
    cases: z.array(caseShape).optional(),
    default: z.string().nullable().optional(),
  }),
  load(raw, loader) {
    const cases: Array<{ id: string; condition: Condition; label: string }> = [];
    (raw.cases ?? []).forEach((c, i) => {
      if (c.id === undefined)
        loader.issue(`cases[${i}].id`, 'a case needs an "id" (the target node)');
      if (!('value' in c)) loader.issue(`cases[${i}].value`, 'a case needs a "value"');
      if (c.id !== undefined && 'value' in c) {
        cases.push({
          id: String(c.id),
          label: `= ${JSON.stringify(c.value ?? null)}`,
          condition: { kind: 'leaf', field: raw.target ?? null, operator: 'eq', value: c.value },
        });
      }
    });
    // An empty default is unset, as the original's truth test has it.
    return { cases, defaultTarget: raw.default || 'default' };
  },
  targets: (def) => [
    ...def.cases.map((c) => ({ to: c.id, label: c.label })),
    { to: def.defaultTarget, label: 'default' },
  ],
  async run(ctx) {
    for (const c of ctx.def.cases) if (await ctx.matches(c.condition)) return c.id;
    return ctx.def.defaultTarget;
  },
});
