import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/nodes/default-registry.js';
import { defineNode } from '../../src/nodes/node-registry.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

/**
 * A plugin type whose targets sit in a field of its own (`routes`: label → node id): no client
 * could draw its edges from the document without knowing the type.
 */
const routesOf = (def: Record<string, unknown>) => def.routes as Record<string, string>;
const router = defineNode({
  type: 'router',
  branching: true,
  targets: (def) => Object.entries(routesOf(def)).map(([label, to]) => ({ to, label })),
  run: (ctx) => Object.values(routesOf(ctx.def))[0] ?? null,
});

const document = {
  flow_id: 'drawn',
  version: '1',
  nodes: [
    { type: 'start', id: 'start', next: 'check' },
    { type: 'if', id: 'check', condition: { field: '$INPUT.n', operator: 'gt', value: 1 } },
    { type: 'router', id: 'true', routes: { fast: 'pick', slow: 'done' } },
    {
      type: 'switch',
      id: 'pick',
      branches: [
        { name: 'small', condition: { field: '$INPUT.n', operator: 'lt', value: 5 }, next: 'done' },
        { name: 'other', isDefault: true, next: 'on' },
      ],
    },
    { type: 'case', id: 'false', target: '$INPUT.n', cases: [{ id: 'done', value: 0 }] },
    { type: 'assignment', id: 'on', output: 1, next: 'done' },
    { type: 'end', id: 'done' },
    { type: 'end', id: 'default' },
  ],
};

const expectedGraph = {
  nodes: [
    { id: 'start', type: 'start', missing: false, replayable: true, effect: null },
    { id: 'check', type: 'if', missing: false, replayable: true, effect: null },
    {
      id: 'true',
      type: 'router',
      missing: false,
      replayable: false,
      effect: 'a node of type router may act on the world (its type does not declare it pure)',
    },
    { id: 'pick', type: 'switch', missing: false, replayable: true, effect: null },
    { id: 'false', type: 'case', missing: false, replayable: true, effect: null },
    { id: 'on', type: 'assignment', missing: false, replayable: true, effect: null },
    { id: 'done', type: 'end', missing: false, replayable: true, effect: null },
    { id: 'default', type: 'end', missing: false, replayable: true, effect: null },
  ],
  edges: [
    { from: 'start', to: 'check', kind: 'next', label: null },
    { from: 'check', to: 'true', kind: 'branch', label: 'true' },
    { from: 'check', to: 'false', kind: 'branch', label: 'false' },
    { from: 'true', to: 'pick', kind: 'branch', label: 'fast' },
    { from: 'true', to: 'done', kind: 'branch', label: 'slow' },
    { from: 'pick', to: 'done', kind: 'branch', label: 'small' },
    { from: 'pick', to: 'on', kind: 'branch', label: 'default' },
    { from: 'false', to: 'done', kind: 'branch', label: '= 0' },
    { from: 'false', to: 'default', kind: 'branch', label: 'default' },
    { from: 'on', to: 'done', kind: 'next', label: null },
  ],
};

let api: ApiHarness;
beforeEach(async () => {
  const registry = defaultRegistry.copy().register(router);
  api = await startApi({ worker: false, app: { registry } });
});
afterEach(async () => {
  await api.close();
});

describe('the flow graph the API answers with (docs/http-api.md §4 Flows)', () => {
  it('draws a version from its node types’ own targets, a plugin type’s included', async () => {
    const saved = await api.fetch('/v1/flows/drawn/versions/1', { method: 'PUT', json: document });
    expect(saved.status).toBe(201);
    expect((await body(saved)).graph).toEqual(expectedGraph);
    const read = await body(await api.fetch('/v1/flows/drawn/versions/1'));
    expect(read.graph).toEqual(expectedGraph);
  });

  it('draws the flow an execution runs the same way', async () => {
    const started = await api.fetch('/v1/executions', {
      method: 'POST',
      json: { flow: document, input: { n: 3 } },
    });
    expect(started.status).toBe(201);
    const { executionId } = await body<{ executionId: string }>(started);
    const pinned = await body(await api.fetch(`/v1/executions/${executionId}/flow`));
    expect(pinned.graph).toEqual(expectedGraph);
  });

  it('draws a draft being written as far as it loads: a missing target, a node that does not load', async () => {
    const draft = {
      nodes: [
        { type: 'start', id: 'start', next: 'call' },
        // No `url`: the node does not load, so it is listed without edges.
        { type: 'http', id: 'call', next: 'end' },
        { type: 'teleport', id: 'beam', next: 'end' },
        { type: 'assignment', id: 'typo', output: 1, next: 'ned' },
        { type: 'end', id: 'end' },
      ],
    };
    const answer = await body<{ valid: boolean; graph: unknown }>(
      await api.fetch('/v1/flows/validate', { method: 'POST', json: { flow: draft } }),
    );
    expect(answer.valid).toBe(false);
    expect(answer.graph).toEqual({
      nodes: [
        { id: 'start', type: 'start', missing: false, replayable: true, effect: null },
        { id: 'call', type: 'http', missing: false, replayable: null, effect: null },
        { id: 'beam', type: 'teleport', missing: false, replayable: null, effect: null },
        { id: 'typo', type: 'assignment', missing: false, replayable: true, effect: null },
        { id: 'end', type: 'end', missing: false, replayable: true, effect: null },
        { id: 'ned', type: null, missing: true, replayable: null, effect: null },
      ],
      edges: [
        { from: 'start', to: 'call', kind: 'next', label: null },
        { from: 'typo', to: 'ned', kind: 'next', label: null },
      ],
    });
  });

  it('names the graph’s fields in /openapi.json', async () => {
    const doc = await body<{ components: { schemas: Record<string, unknown> } }>(
      await api.fetch('/openapi.json'),
    );
    expect(doc.components.schemas.FlowGraph).toMatchObject({
      properties: { nodes: { type: 'array' }, edges: { type: 'array' } },
    });
    for (const name of ['FlowVersion', 'FlowValidation', 'PinnedFlow'])
      expect(JSON.stringify(doc.components.schemas[name])).toContain(
        '#/components/schemas/FlowGraph',
      );
  });
});
