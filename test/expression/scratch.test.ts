import { it, expect } from 'vitest';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { defaultFunctions } from '../../src/expression/function-registry.js';

it('smoke', () => {
  const scope = { context: { $INPUT: { items: [{ price: 3 }], name: 'Ann', xs: [3, 1, 2] } }, functions: defaultFunctions };
  expect(evaluateValue('$INPUT.items[0].price', scope)).toBe(3);
  expect(evaluateValue('Hello {% $INPUT.name %}, {%$F.len($INPUT.xs)%}', scope)).toBe('Hello Ann, 3');
  expect(evaluateValue('$F.sort($INPUT.xs)', scope)).toEqual([1, 2, 3]);
  expect(defaultFunctions.names().length).toBe(73);
  expect(() => evaluateValue('$F.nope(1)', scope)).toThrow(/nope/);
});
