import { describe, expect, it } from 'vitest';
import { ExpressionError } from '../../src/errors/expression-errors.js';
import { evaluateValue } from '../../src/expression/evaluate.js';
import { FlowError, parseFlow, runFlow } from '../../src/index.js';
import { makeScope } from './make-scope.js';

/**
 * Calls nest at most 200 deep in one string, and strings found in data nest at most 64 deep:
 * each limit alone is far from the end of the stack, both together were past it (a plain
 * RangeError out of a node). Their sum is bounded too, with a typed error.
 */
describe('nested expressions with deep calls', () => {
  it('are refused with an ExpressionError, not a stack overflow', async () => {
    const deep = `${'$F.not('.repeat(199)}$.k${')'.repeat(199)}`;
    let chain: Record<string, unknown> = { k: true };
    for (let level = 0; level < 24; level++) chain = { k: deep, $: chain };
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: '$INPUT.x.k', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.a' },
      ],
    });
    const error = await runFlow(flow, { x: chain }).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(FlowError);
    expect((error as FlowError).node).toBe('a');
    expect((error as FlowError).message).toContain('go too deep');
    expect((error as FlowError).message).not.toContain('call stack');
  });

  it('a parse error keeps its position when it is thrown again', () => {
    const scope = makeScope({});
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = (() => {
        try {
          evaluateValue('$F.add(1,', scope);
          return null;
        } catch (failure) {
          return failure;
        }
      })();
      expect(error).toBeInstanceOf(ExpressionError);
      expect((error as ExpressionError).position).toBe(9);
    }
  });
});
