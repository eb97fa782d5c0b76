import { describe, expect, it } from 'vitest';
import { FunctionRegistry, defaultFunctions } from '../../../src/expression/function-registry.js';
import { classifyReplay, replayView } from '../../../src/flow/analysis/replayability.js';
import { loadFlowDocument } from '../../../src/flow/load-flow.js';
import { defaultRegistry } from '../../../src/nodes/default-registry.js';
import { defineNode } from '../../../src/nodes/node-registry.js';
import { flowOf } from './analyze-support.js';

/**
 * Which nodes a durable worker may recompute after a crash instead of storing first
 * (docs/durable-contract.md §5 step 5): the type vouches for a pure result, and every
 * expression calls only deterministic built-ins and reads no $ENV. Everything else is effectful.
 */
const verdicts = (document: unknown, registry = defaultRegistry, functions = defaultFunctions) =>
  Object.fromEntries(
    replayView(loadFlowDocument(document, { registry }), functions).map((n) => [
      n.nodeId,
      n.replayable ? 'replayable' : (n.reason ?? ''),
    ]),
  );

const assign = (id: string, output: unknown, next = 'end') => ({
  type: 'assignment',
  id,
  output,
  next,
});

describe('replayable or effectful', () => {
  it('data and control nodes with pure expressions are replayable; start and end too', () => {
    const flow = flowOf([
      assign('a', { total: '$F.add($INPUT.x, 1)', text: 'n={% $INPUT.x %}' }, 'b'),
      {
        type: 'if',
        id: 'b',
        condition: { field: '$NODE.a.total', operator: 'gt', value: 1 },
        true_next: 'end',
        false_next: 'end',
      },
    ]);
    expect(verdicts(flow)).toEqual({
      start: 'replayable',
      a: 'replayable',
      b: 'replayable',
      end: 'replayable',
    });
  });

  it('a node reading the clock, in an expression or a template, is effectful', () => {
    const flow = flowOf([
      assign('at', '$F.now()', 'day'),
      assign('day', 'today is {% $F.today("%A") %}'),
    ]);
    expect(verdicts(flow)).toMatchObject({
      at: 'it calls $F.now, which reads the clock',
      day: 'it calls $F.today, which reads the clock',
    });
  });

  it('a node reading $ENV is effectful', () => {
    const flow = flowOf([assign('env', '$ENV.REGION')], { exposeEnv: ['REGION'] });
    expect(verdicts(flow).env).toBe('it reads $ENV');
  });

  it('a host function is never deterministic, even under a built-in’s name', () => {
    const functions = defaultFunctions.copy();
    functions.register('shout', (s) => String(s).toUpperCase());
    functions.register('upper', (s) => String(s).toUpperCase(), { override: true });
    const flow = flowOf([assign('a', '$F.shout($INPUT.x)', 'b'), assign('b', '$F.upper("x")')]);
    expect(verdicts(flow, defaultRegistry, functions)).toMatchObject({
      a: "it calls $F.shout, which is not one of plaita's deterministic functions",
      b: "it calls $F.upper, which is not one of plaita's deterministic functions",
    });
    expect(new FunctionRegistry().register('f', () => 1).get('f')?.deterministic).toBe(false);
  });

  it('nodes that talk to the world, wait or run code are effectful', () => {
    const flow = flowOf([
      { type: 'http', id: 'call', url: 'https://example.com', next: 'wait' },
      { type: 'event', id: 'wait', event_type: 'go', next: 'end' },
    ]);
    expect(verdicts(flow)).toMatchObject({
      call: 'a node of type http may act on the world (its type does not declare it pure)',
      wait: 'a node of type event waits for the world',
    });
  });

  it('a custom node type is effectful unless it declares itself pure', () => {
    const registry = defaultRegistry
      .copy()
      .register(defineNode({ type: 'double', run: (ctx) => ctx.input }))
      .register(defineNode({ type: 'pure_double', inert: true, run: (ctx) => ctx.input }));
    const flow = flowOf([
      { type: 'double', id: 'd', next: 'p' },
      { type: 'pure_double', id: 'p', next: 'end' },
    ]);
    expect(verdicts(flow, registry)).toMatchObject({
      d: 'a node of type double may act on the world (its type does not declare it pure)',
      // Declared pure, but which fields it evaluates is unknown: they cannot be checked.
      p: 'its expressions cannot be read (a plugin type)',
    });
  });

  it('a loop is replayable when its body is, effectful when a node of its body is', () => {
    const body = (node: Record<string, unknown>) => ({
      nodes: [{ type: 'start', id: 's', next: 'n' }, node, { type: 'end', id: 'e' }],
    });
    const flow = flowOf([
      {
        type: 'map',
        id: 'pure',
        collection: '$INPUT.items',
        childFlow: body(assign('n', '$F.mul($INPUT.item, 2)', 'e')),
        next: 'clock',
      },
      {
        type: 'map',
        id: 'clock',
        collection: '$INPUT.items',
        childFlow: body(assign('n', '$F.now()', 'e')),
        next: 'end',
      },
    ]);
    expect(verdicts(flow)).toMatchObject({
      pure: 'replayable',
      clock: 'a node of its child flow is effectful',
    });
  });

  it('classifies the definition the engine routes to, once per id', () => {
    const flow = loadFlowDocument(flowOf([assign('a', 1)]), { registry: defaultRegistry });
    expect([...classifyReplay(flow).keys()]).toEqual(['start', 'a', 'end']);
  });
});
