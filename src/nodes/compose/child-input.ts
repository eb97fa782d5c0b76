import type { Flow } from '../../flow/flow.js';
import { matchesType } from '../../flow/type-schema.js';
import { ChildInputTypeError } from '../../errors/node-errors.js';

/** docs/flow-format.md §3.7: a child flow that declares `inputType` gets only matching (evaluated) input. */
export function checkChildInput(flow: Flow, input: unknown): void {
  if (flow.inputType && !matchesType(flow.inputType, input)) {
    throw new ChildInputTypeError(
      `the input does not match the inputType (${flow.inputType.dataType}) of child flow '${flow.id ?? '(unnamed)'}'`,
    );
  }
}
