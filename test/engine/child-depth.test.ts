import { describe, expect, it } from 'vitest';
import { FlowError, parseFlow, runFlow } from '../../src/index.js';

/**
 * A flow that references itself starts a child per level, each with a fresh step count: without
 * a bound on nesting it recursed until memory ran out. The operator's `maxChildDepth` ends it
 * with an error naming the node; recursion that stays within the bound still works.
 */
const countdown = parseFlow({
  flow_id: 'countdown',
  nodes: [
    { type: 'start', id: 's', next: 'c' },
    {
      type: 'if',
      id: 'c',
      condition: { field: '$INPUT.n', operator: 'gt', value: 0 },
      next: 'r',
      else_next: 'bottom',
    },
    {
      type: 'reference',
      id: 'r',
      flow_id: 'countdown',
      input: { n: '$F.sub($INPUT.n, 1)' },
      next: 'up',
    },
    { type: 'end', id: 'up', output: '$NODE.r' },
    { type: 'end', id: 'bottom', output: 'bottom' },
  ],
});
const options = { resolveFlow: () => countdown, limits: { maxChildDepth: 3 } };

describe('nesting of child executions', () => {
  it('runs recursion that stays within maxChildDepth', async () => {
    expect(await runFlow(countdown, { n: 3 }, options)).toBe('bottom');
  });

  it('ends a deeper one with an error that names the node and the limit', async () => {
    const error = await runFlow(countdown, { n: 4 }, options).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(FlowError);
    expect((error as FlowError).node).toBe('r');
    expect((error as FlowError).message).toContain('maxChildDepth');
  });

  it('stops a flow that references itself for ever, by default', async () => {
    const forever = parseFlow({
      flow_id: 'A',
      nodes: [
        { type: 'start', id: 's', next: 'r' },
        { type: 'reference', id: 'r', flow_id: 'A', input: '$INPUT', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.r' },
      ],
    });
    const error = await runFlow(forever, {}, { resolveFlow: () => forever }).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect((error as FlowError).message).toContain('past the limit of 100 (maxChildDepth)');
  });
});
