import { describe, expect, it } from 'vitest';
import {
  defaultRegistry,
  defineNode,
  parseFlow,
  runFlow,
  runStep,
  type FlowHooks,
} from '../../src/index.js';

function recorder() {
  const events: string[] = [];
  const hooks: FlowHooks = {
    onFlowStart: (e) =>
      void events.push(`flowStart ${e.mode}${e.parentExecutionId ? ' child' : ''}`),
    onFlowEnd: (e) =>
      void events.push(`flowEnd ${e.error ? `error ${e.error.code}` : JSON.stringify(e.result)}`),
    onNodeStart: (e) => void events.push(`nodeStart ${e.node}`),
    onNodeEnd: (e) => void events.push(`nodeEnd ${e.node}${e.error ? ' error' : ''}`),
  };
  return { events, hooks };
}

const simple = parseFlow({
  flow_id: 'h',
  nodes: [
    { type: 'start', id: 's', next: 'a' },
    { type: 'assignment', id: 'a', output: 1, next: 'e' },
    { type: 'end', id: 'e', output: '$NODE.a' },
  ],
});

describe('lifecycle hooks', () => {
  it('fire in order in run mode, start and end nodes included', async () => {
    const { events, hooks } = recorder();
    await runFlow(simple, {}, { hooks });
    expect(events).toEqual([
      'flowStart run',
      'nodeStart s',
      'nodeEnd s',
      'nodeStart a',
      'nodeEnd a',
      'nodeStart e',
      'nodeEnd e',
      'flowEnd 1',
    ]);
  });

  it('a hook that throws is ignored; the next hook still runs', async () => {
    const { events, hooks } = recorder();
    const broken: FlowHooks = {
      onNodeStart: () => {
        throw new Error('hook bug');
      },
      onFlowEnd: () => Promise.reject(new Error('async hook bug')),
    };
    expect(await runFlow(simple, {}, { hooks: [broken, hooks] })).toBe(1);
    expect(events.at(-1)).toBe('flowEnd 1');
  });

  it('report failures with the numeric code', async () => {
    const { events, hooks } = recorder();
    const failing = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', resultType: 'error', error: { code: 42, message: 'no' } },
      ],
    });
    await expect(runFlow(failing, {}, { hooks })).rejects.toMatchObject({
      code: 42,
      type: 'error_result',
    });
    expect(events.slice(-2)).toEqual(['nodeEnd e error', 'flowEnd error 42']);
  });

  it('child executions report through the same hooks with parentExecutionId', async () => {
    const { events, hooks } = recorder();
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        {
          type: 'child',
          id: 'c',
          input: 2,
          childFlow: {
            nodes: [
              { type: 'start', id: 'cs', next: 'ce' },
              { type: 'end', id: 'ce', output: '$INPUT' },
            ],
          },
          next: 'e',
        },
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    });
    expect(await runFlow(flow, {}, { hooks })).toBe(2);
    expect(events).toContain('flowStart run child');
  });

  it('distributed mode fires onFlowStart only on the first step', async () => {
    const { events, hooks } = recorder();
    const first = await runStep(simple, { input: {} }, { hooks });
    await runStep(simple, { checkpoint: first.context }, { hooks });
    expect(events.filter((e) => e.startsWith('flowStart'))).toEqual(['flowStart distributed']);
    expect(events.at(-1)).toBe('flowEnd 1');
  });
});

describe('child executions', () => {
  it('derive their execution ids from the parent, percent-encoding separators', async () => {
    const ids: string[] = [];
    const registry = defaultRegistry
      .copy()
      .register(defineNode({ type: 'who', run: (ctx) => void ids.push(ctx.executionId) }));
    const flow = parseFlow(
      {
        nodes: [
          { type: 'start', id: 's', next: 'm:x' },
          {
            type: 'map',
            id: 'm:x',
            collection: ['a', 'b'],
            childFlow: {
              nodes: [
                { type: 'start', id: 's', next: 'w' },
                { type: 'who', id: 'w', next: 'e' },
                { type: 'end', id: 'e', output: 1 },
              ],
            },
            next: 'p',
          },
          {
            type: 'parallel',
            id: 'p',
            joinBranches: ['left/1'],
            branches: [
              {
                name: 'left/1',
                flow: {
                  nodes: [
                    { type: 'start', id: 's', next: 'w' },
                    { type: 'who', id: 'w', next: 'e' },
                    { type: 'end', id: 'e', output: 1 },
                  ],
                },
              },
            ],
            next: 'e',
          },
          { type: 'end', id: 'e', output: 'ok' },
        ],
      },
      { registry },
    );
    await runFlow(flow, {}, { executionId: 'root' });
    expect(ids).toEqual(['root/m%3Ax/1/0', 'root/m%3Ax/1/1', 'root/p/1/left%2F1']);
  });

  it('background parallel branches never fail the node', async () => {
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'p' },
        {
          type: 'parallel',
          id: 'p',
          joinBranches: [],
          branches: [
            {
              name: 'bg',
              flow: {
                nodes: [
                  { type: 'start', id: 's', next: 'e' },
                  { type: 'end', id: 'e', resultType: 'error', error: { code: 1, message: 'bg' } },
                ],
              },
            },
          ],
          next: 'e',
        },
        { type: 'end', id: 'e', output: '$NODE.p' },
      ],
    });
    expect(await runFlow(flow, {})).toEqual({});
  });

  it('reference nodes use the resolver and check the evaluated input', async () => {
    const library = parseFlow({
      flow_id: 'lib',
      inputType: { dataType: 'integer' },
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e', output: '$F.mul($INPUT, 2)' },
      ],
    });
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'r' },
        { type: 'reference', id: 'r', flow_id: 'lib', input: '$INPUT.n', next: 'e' },
        { type: 'end', id: 'e', output: '$NODE.r' },
      ],
    });
    const resolveFlow = (id: string) => (id === 'lib' ? library : null);
    expect(await runFlow(flow, { n: 21 }, { resolveFlow })).toBe(42);
    await expect(runFlow(flow, { n: 'x' }, { resolveFlow })).rejects.toMatchObject({
      type: 'node_error',
      node: 'r',
    });
    await expect(runFlow(flow, { n: 1 })).rejects.toThrow(/no flow resolver/);
  });
});
