import { describe, expect, it } from 'vitest';
import { Stepper } from '../../src/engine/stepper.js';
import { parseFlow, runFlow } from '../../src/index.js';

/**
 * A `$F` function with side effects (`pop`, `setListItem`, …) changes a value in place; the
 * engine detaches the live context from the checkpoints it handed out first (§6.6: a checkpoint
 * never changes after it was taken). In a condition it changes nothing the flow keeps (§4, the
 * original's loop and while conditions run on a deep copy): it works on the condition's own
 * copy, made at the first such call.
 */
describe('a mutating $F function in a condition with extra roots (while)', () => {
  const flow = parseFlow({
    nodes: [
      { type: 'start', id: 's', next: 'a' },
      { type: 'assignment', id: 'a', output: { list: [1, 2, 3] }, next: 'w' },
      {
        type: 'while',
        id: 'w',
        maxIterations: 10,
        condition: { field: '$F.pop($NODE.a.list, 0)', operator: 'eq', value: 1 },
        childFlow: {
          nodes: [
            { type: 'start', id: 's', next: 'e' },
            { type: 'end', id: 'e', output: '$INPUT.index' },
          ],
        },
        next: 'e',
      },
      { type: 'end', id: 'e', output: { list: '$NODE.a.list', last: '$NODE.w' } },
    ],
  });

  it('changes neither the live context nor a checkpoint: each check pops from a fresh copy', async () => {
    const stepper = new Stepper(flow, { input: {}, executionId: 'x' });
    const lists: unknown[] = [];
    const changed: Array<string[] | null> = [];
    for (;;) {
      const outcome = await stepper.step();
      if (outcome.status === 'failed') throw outcome.error;
      lists.push((outcome.context.$NODE as { a: { list: number[] } }).a.list);
      changed.push(outcome.changedNodes);
      if (outcome.status === 'completed') {
        stepper.dispose();
        // Every check pops 1 from its own copy, so the loop runs to maxIterations (index 9).
        expect(outcome.result).toEqual({ list: [1, 2, 3], last: 9 });
        break;
      }
    }
    expect(lists).toEqual([
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
    ]);
    // Nothing but the while's own result changed: the checkpoint can be written incrementally.
    expect(changed[1]).toEqual(['w']);
  });
});

describe('a mutating $F function on $LOOP-ITEM (loop condition)', () => {
  const flow = parseFlow({
    nodes: [
      { type: 'start', id: 's', next: 'a' },
      {
        type: 'assignment',
        id: 'a',
        output: { items: [{ tags: [1, 2, 3] }, { tags: [4] }] },
        next: 'l',
      },
      {
        type: 'loop',
        id: 'l',
        collection: '$NODE.a.items',
        condition: { field: '$F.pop($LOOP-ITEM.tags, 0)', operator: 'eq', value: 1 },
        childFlow: {
          nodes: [
            { type: 'start', id: 's', next: 'e' },
            { type: 'end', id: 'e', output: '$INPUT.index' },
          ],
        },
        next: 'e',
      },
      { type: 'end', id: 'e', output: '$NODE.l' },
    ],
  });

  it('changes the condition’s own copy of the item, never the checkpoint taken before', async () => {
    const stepper = new Stepper(flow, { input: {}, executionId: 'y' });
    const first = await stepper.step(); // s, a
    if (first.status === 'failed') throw first.error;
    let outcome = await stepper.step();
    while (outcome.status === 'advanced') outcome = await stepper.step();
    stepper.dispose();
    if (outcome.status !== 'completed') throw new Error(`ended ${outcome.status}`);
    // The first item's tags popped 1: the condition matched, the loop went on to the second.
    expect(outcome.result).toBe(1);
    expect((first.context.$NODE as { a: unknown }).a).toEqual({
      items: [{ tags: [1, 2, 3] }, { tags: [4] }],
    });
  });
});

describe('a mutating $F function on $GLOBAL', () => {
  it('changes that run’s copy, never the parsed flow the next run starts from', async () => {
    const flow = parseFlow({
      flow_id: 'p',
      globalContext: { g: { a: 1 } },
      nodes: [
        { type: 'start', id: 'start', next: 'c' },
        {
          type: 'if',
          id: 'c',
          condition: { field: '$INPUT.write', operator: 'eq', value: true },
          next: 'w',
          else_next: 'end',
        },
        {
          type: 'assignment',
          id: 'w',
          output: { s: "$F.set($GLOBAL.g, 'secret', $INPUT.secret)" },
          next: 'end',
        },
        { type: 'end', id: 'end', output: '$GLOBAL.g' },
      ],
    });
    expect(await runFlow(flow, { write: true, secret: 'alice' })).toEqual({
      a: 1,
      secret: 'alice',
    });
    expect(await runFlow(flow, { write: false })).toEqual({ a: 1 });
  });
});

/**
 * A result taken from the definition (a mock's `value`, a `continue-with` default, an event
 * node's filter) is the execution's own copy: a mutating `$F` on it must not change the parsed
 * flow, which every later run of the same Flow (and a worker's cached flow) starts from.
 */
describe('a mutating $F function on a result taken from the definition', () => {
  const bump = (path: string) => `$F.set(${path}, 'n', $F.add(${path}.n, 1))`;
  const cases: Array<[string, unknown[], string]> = [
    ['mock value', [{ type: 'mock', id: 'm', value: { n: 1 }, next: 'a' }], '$NODE.m'],
    [
      'continue-with default',
      [
        {
          type: 'assignment',
          id: 'm',
          output: '$F.fail()',
          errorHandler: { strategy: 'continue-with', defaultValue: { n: 1 } },
          next: 'a',
        },
      ],
      '$NODE.m',
    ],
  ];
  it.each(cases)(
    '%s: every run of one parsed flow gives the same result',
    async (_, nodes, path) => {
      const flow = parseFlow({
        nodes: [
          { type: 'start', id: 's', next: 'm' },
          ...nodes,
          { type: 'assignment', id: 'a', output: bump(path), next: 'e' },
          { type: 'end', id: 'e', output: path },
        ],
      });
      const first = await runFlow(flow, {});
      const second = await runFlow(flow, {});
      expect(first).toEqual({ n: 2 });
      expect(second).toEqual({ n: 2 });
    },
  );

  it("an event node's filter: the next run suspends with the filter as written", async () => {
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'd' },
        { type: 'event', id: 'd', event_type: 'order_paid', event_filter: { k: 1 }, next: 'e' },
        { type: 'end', id: 'e' },
      ],
    });
    for (let run = 0; run < 2; run++) {
      const stepper = new Stepper(
        flow,
        { input: {}, executionId: `r${run}` },
        { events: { subscribe: () => 'sub-1' } },
      );
      let outcome = await stepper.step();
      while (outcome.status === 'advanced') outcome = await stepper.step();
      expect(outcome.status).toBe('suspended');
      const pending = outcome.context!.$NODE as Record<string, { event_filter: { k: number } }>;
      expect(pending.d?.event_filter).toEqual({ k: 1 });
      pending.d!.event_filter.k = 99; // what a mutating $F does to the live result
    }
  });
});
