import type { TemplatePart } from './ast.js';
import { compileExpression } from './compile.js';
import type { Compiled, NestedEvaluator } from './compile.js';
import type { EvaluationMeter } from './meter.js';
import type { Context, EvaluationScope } from './scope.js';
import { displayForm } from './values.js';
import { isPromiseLike } from '../util/maybe-promise.js';

/** A template: its text runs and the display form (§5.6) of each slot, joined. */
export function compileTemplate(
  parts: readonly TemplatePart[],
  source: string,
  nested: NestedEvaluator,
): Compiled {
  const pieces = parts.map((part) =>
    typeof part === 'string' ? part : compileExpression(part, source, nested),
  );
  if (pieces.every((piece) => typeof piece === 'string')) return () => source;
  return (scope, local, depth, meter) => {
    let out = '';
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string | Compiled;
      if (typeof piece === 'string') {
        out += piece;
        continue;
      }
      const value = piece(scope, local, depth, meter);
      if (isPromiseLike(value))
        return finishTemplate(value, out, i, pieces, scope, local, depth, meter);
      out += shown(value, meter);
    }
    meter.produce(out, 'a template');
    return out;
  };
}

async function finishTemplate(
  pending: PromiseLike<unknown>,
  head: string,
  from: number,
  pieces: readonly (string | Compiled)[],
  scope: EvaluationScope,
  local: Context | undefined,
  depth: number,
  meter: EvaluationMeter,
): Promise<string> {
  let out = head + shown(await pending, meter);
  for (let i = from + 1; i < pieces.length; i++) {
    const piece = pieces[i] as string | Compiled;
    out +=
      typeof piece === 'string' ? piece : shown(await piece(scope, local, depth, meter), meter);
  }
  meter.produce(out, 'a template');
  return out;
}

/** A slot's display form, its JSON text charged before it is made (it may be huge). */
function shown(value: unknown, meter: EvaluationMeter): string {
  meter.chargeDeep(value, 'a template');
  return displayForm(value);
}
