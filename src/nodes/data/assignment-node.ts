import { z } from 'zod';
import { matchesType } from '../../flow/type-schema.js';
import { displayForm } from '../../expression/values.js';
import { whenReady } from '../../util/maybe-promise.js';
import { builtinNode, pick } from '../builtin-node.js';
import { OutputTypeMismatchError } from '../../errors/node-errors.js';

const upstreamShape = z.looseObject({
  upstream: z.string().nullable().optional(),
  value: z.unknown().optional(),
});

/**
 * docs/flow-format.md §3.3: one upstreamOutput entry → its value; several → the entry whose upstream is
 * `$LAST_NODE` (none → []); otherwise `output` (0, false and "" are values); the evaluated
 * result must match `outputType` when one is declared. With none of these the result is null,
 * unchecked.
 */
export const assignmentNode = builtinNode({
  type: 'assignment',
  inert: true,
  schema: z.looseObject({
    outputType: z.unknown().optional(),
    output_type: z.unknown().optional(),
    upstreamOutput: z.array(upstreamShape).nullable().optional(),
    upstream_output: z.array(upstreamShape).nullable().optional(),
  }),
  load(raw, loader) {
    const outputTypeRaw = pick(raw.outputType, raw.output_type);
    return {
      outputType: loader.typeSchema(
        outputTypeRaw,
        raw.outputType !== undefined ? 'outputType' : 'output_type',
      ),
      upstreamOutput: (pick(raw.upstreamOutput, raw.upstream_output) ?? []).map((e) => ({
        upstream: e.upstream ?? null,
        value: e.value ?? null,
      })),
    };
  },
  run(ctx) {
    const { upstreamOutput, outputType, output } = ctx.def;
    let value: unknown = null;
    if (upstreamOutput.length === 1) value = upstreamOutput[0]!.value;
    else if (upstreamOutput.length > 1) {
      const last = ctx.get('$LAST_NODE');
      // A matching entry's null value is null; only no match at all is [].
      const match = upstreamOutput.find((e) => e.upstream === last);
      value = match === undefined ? [] : match.value;
    } else if (output !== null) value = output;
    // Nothing to assign: null, with no type check (the original returns before its check).
    else return null;
    // Synchronous unless a function returned a promise: no promise per node on the hot path.
    return whenReady(ctx.evaluate(value), (result) => {
      if (outputType && !matchesType(outputType, result)) {
        throw new OutputTypeMismatchError(
          `the result ${truncate(displayForm(result))} does not match the declared outputType ${outputType.dataType}`,
        );
      }
      return result;
    });
  },
});

function truncate(text: string): string {
  return text.length > 80 ? text.slice(0, 80) + '…' : text;
}
