import { z } from 'zod';
import { FlowResultError } from '../../errors/flow-errors.js';
import { builtinNode, pick } from '../builtin-node.js';

type ResultType = 'success' | 'nop' | 'error';

const errorShape = z.looseObject({
  code: z.number().int().nullable().optional(),
  message: z.string().nullable().optional(),
});

/** docs/flow-format.md §3.2: success → the evaluated output; nop → null; error → a business failure. */
export const endNode = builtinNode({
  type: 'end',
  inert: true,
  schema: z.looseObject({
    resultType: z.string().optional(),
    result_type: z.string().optional(),
    error: errorShape.nullable().optional(),
  }),
  load(raw, loader) {
    const written = pick(raw.resultType, raw.result_type) ?? 'success';
    let resultType: ResultType = 'success';
    if (written === 'success' || written === 'nop' || written === 'error') resultType = written;
    else loader.warn(`unknown resultType "${written}" acts as "success"`);
    return {
      resultType,
      error: { code: raw.error?.code ?? null, message: raw.error?.message ?? null },
    };
  },
  run(ctx) {
    const { resultType, error } = ctx.def;
    if (resultType === 'nop') return null;
    if (resultType === 'error') throw new FlowResultError(error.code, error.message);
    return ctx.evaluate(ctx.def.output);
  },
});
