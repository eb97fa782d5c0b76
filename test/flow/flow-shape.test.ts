import { describe, expect, it } from 'vitest';
import { isLoadedFlow, loadFlowDocument, loadFlowPartly } from '../../src/flow/load-flow.js';
import { flowShape } from '../../src/flow/flow-shape.js';
import { defaultRegistry } from '../../src/nodes/default-registry.js';
import { defineNode } from '../../src/nodes/node-registry.js';

const load = (nodes: unknown[]) => loadFlowDocument({ nodes }, { registry: defaultRegistry });

describe('flowShape: a flow as a graph draws it', () => {
  it('follows the engine: an end has no edge even with a `next`, a duplicate id is its last definition', () => {
    const shape = flowShape(
      load([
        { type: 'start', id: 'start', next: 'a' },
        { type: 'assignment', id: 'a', output: 1, next: 'gone' },
        { type: 'assignment', id: 'a', output: 2, next: 'end' },
        { type: 'end', id: 'end', next: 'start' },
      ]),
    );
    expect(shape.nodes.map((n) => n.id)).toEqual(['start', 'a', 'end']);
    expect(shape.edges.map((e) => `${e.from}>${e.to}`)).toEqual(['start>a', 'a>end']);
  });

  it('draws a branching plugin without `targets` from its branches (`next`, else `name`)', () => {
    const fork = defineNode({
      type: 'fork',
      branching: true,
      branchNameAsTarget: true,
      run: () => null,
    });
    const registry = defaultRegistry.copy().register(fork);
    const flow = loadFlowDocument(
      {
        nodes: [
          { type: 'start', id: 'start', next: 'f' },
          { type: 'fork', id: 'f', branches: [{ name: 'left', next: 'end' }, { name: 'right' }] },
          { type: 'end', id: 'end' },
        ],
      },
      { registry },
    );
    expect(flowShape(flow).edges).toEqual([
      { from: 'start', to: 'f', kind: 'next', label: null },
      { from: 'f', to: 'end', kind: 'branch', label: 'left' },
      { from: 'f', to: 'right', kind: 'branch', label: 'right' },
    ]);
    expect(flowShape(flow).nodes.at(-1)).toEqual({
      id: 'right',
      type: null,
      missing: true,
      replayable: null,
      effect: null,
    });
  });

  it('a flow loaded partly is drawn, and is never taken for a loaded flow that can run', () => {
    const { flow, issues } = loadFlowPartly(
      {
        nodes: [
          { type: 'start', id: 'start', next: 'x' },
          { type: 'nope', id: 'x', next: 'y' },
        ],
      },
      { registry: defaultRegistry },
    );
    expect(issues).toHaveLength(1);
    expect(isLoadedFlow(flow)).toBe(false);
    expect(flowShape(flow)).toEqual({
      nodes: [
        { id: 'start', type: 'start', missing: false, replayable: true, effect: null },
        { id: 'x', type: 'nope', missing: false, replayable: null, effect: null },
      ],
      edges: [{ from: 'start', to: 'x', kind: 'next', label: null }],
    });
  });
});
