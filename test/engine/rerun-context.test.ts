import { describe, expect, it } from 'vitest';
import { rerunContext, type RerunOriginal } from '../../src/engine/rerun-context.js';
import { Stepper } from '../../src/engine/stepper.js';
import type { Flow } from '../../src/flow/flow.js';
import type { NodeTiming } from '../../src/state/execution-state.js';
import { parseFlow, RerunRefusedError, type StepOutcome } from '../../src/index.js';

/**
 * start → a → sw (switch on $INPUT.x) → b | c → d → end, and a loop whose body has its own
 * node. Each original is run step by step with the Stepper; its timings are what the worker
 * records: each node's latest visit, one millisecond apart.
 */
const flow = parseFlow({
  flow_id: 'rerun',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: { v: '$F.add($INPUT.i, 1)' }, next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      branches: [
        { condition: { field: '$INPUT.x', operator: 'eq', value: 1 }, next: 'b' },
        { isDefault: true, next: 'c' },
      ],
    },
    { type: 'assignment', id: 'b', output: { v: '$F.add($NODE.a.v, 10)' }, next: 'd' },
    { type: 'assignment', id: 'c', output: { v: '$F.add($NODE.a.v, 100)' }, next: 'd' },
    {
      type: 'loop',
      id: 'd',
      collection: [1, 2],
      childFlow: {
        nodes: [
          { type: 'start', id: 'start', next: 'inner' },
          { type: 'assignment', id: 'inner', output: '$INPUT.item', next: 'end' },
          { type: 'end', id: 'end', output: '$NODE.inner' },
        ],
      },
      next: 'end',
    },
    { type: 'end', id: 'end', output: { a: '$NODE.a.v', b: '$NODE.b.v', c: '$NODE.c.v' } },
  ],
});

/** Runs `source` to its end, step by step, with the timings a worker would record. */
async function ranOriginal(
  source: Flow,
  input: Record<string, unknown>,
  executionId = 'orig',
): Promise<RerunOriginal & { result: unknown }> {
  const stepper = new Stepper(source, { input, executionId });
  const timings: Record<string, NodeTiming> = {};
  let clock = Date.parse('2025-01-01T00:00:00.000Z');
  const visit = (id: string) => {
    const at = new Date(clock++).toISOString();
    delete timings[id];
    timings[id] = { startedAt: at, endedAt: at, attempts: 1, durationMs: 0 };
  };
  visit('start');
  let outcome: StepOutcome;
  for (
    let next = stepper.nextNodeId;
    ;
    next = outcome.status === 'advanced' ? outcome.nextNodeId : null
  ) {
    if (next !== null) visit(next);
    outcome = await stepper.step();
    if (outcome.status !== 'advanced') break;
  }
  stepper.dispose();
  if (outcome.status !== 'completed') throw new Error(`the original ended ${outcome.status}`);
  return { executionId, context: outcome.context, timings, result: outcome.result };
}

/** Runs a rerun's context to its end, counting the nodes each step runs. */
async function finish(source: Flow, context: Record<string, unknown>) {
  const stepper = new Stepper(source, { checkpoint: context });
  const ran: string[] = [];
  let outcome: StepOutcome;
  do {
    outcome = await stepper.step();
    if (outcome.step?.nodeId) ran.push(outcome.step.nodeId);
  } while (outcome.status === 'advanced');
  stepper.dispose();
  return { ran, outcome };
}

function refusal(run: () => unknown): RerunRefusedError {
  try {
    run();
  } catch (error) {
    if (error instanceof RerunRefusedError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('rerunContext', () => {
  it('keeps the results of the nodes before fromNode on the path taken, and runs from it', async () => {
    const original = await ranOriginal(flow, { i: 1, x: 1 });
    expect(original.result).toEqual({ a: 2, b: 12, c: null });
    const plan = rerunContext(flow, original, { fromNode: 'b', executionId: 'again' });
    expect(plan.kept).toEqual(['start', 'a', 'sw']);
    expect(plan.willRun).toEqual(['b', 'd', 'end']);
    expect(plan.context).toMatchObject({
      $EXECUTION_ID: 'again',
      $INPUT: { i: 1, x: 1 },
      $LAST_NODE: 'sw',
      $BRANCH: 'b',
      $VISITS: { start: 1, a: 1, sw: 1 },
    });
    expect(Object.keys(plan.context.$NODE as object)).toEqual(['start', 'a', 'sw']);
    const { ran, outcome } = await finish(flow, plan.context);
    expect(ran).toEqual(['b', 'd', 'end']);
    expect(outcome).toMatchObject({ status: 'completed', result: { a: 2, b: 12 } });
  });

  it('takes a kept result from `results` and the input given, and goes the saved branch', async () => {
    const original = await ranOriginal(flow, { i: 1, x: 1 });
    const plan = rerunContext(flow, original, {
      fromNode: 'b',
      executionId: 'again',
      input: { i: 50, x: 2 },
      results: { a: { v: 7 } },
    });
    // The switch is kept: its saved choice (b) holds though the new input would choose c.
    const { ran, outcome } = await finish(flow, plan.context);
    expect(ran).toEqual(['b', 'd', 'end']);
    expect(outcome).toMatchObject({ result: { a: 7, b: 17 } });
  });

  it('reruns the node right after start, and from start itself keeps nothing', async () => {
    const original = await ranOriginal(flow, { i: 1, x: 2 });
    const fromA = rerunContext(flow, original, { fromNode: 'a', executionId: 'again' });
    expect(fromA.kept).toEqual(['start']);
    expect((await finish(flow, fromA.context)).ran).toEqual(['a', 'sw', 'c', 'd', 'end']);
    const fromStart = rerunContext(flow, original, { fromNode: 'start', executionId: 'again' });
    expect(fromStart).toMatchObject({ kept: [], context: { $INPUT: { i: 1, x: 2 } } });
    expect(Object.keys(fromStart.context)).toEqual(['$INPUT']);
  });

  it('refuses a node that never ran, a node of a loop body, an unknown node, and results of nodes not kept', async () => {
    const original = await ranOriginal(flow, { i: 1, x: 1 });
    const never = refusal(() => rerunContext(flow, original, { fromNode: 'c', executionId: 'n' }));
    expect(never).toMatchObject({ code: 'rerun_refused', path: 'fromNode' });
    expect(never.message).toContain("node 'c' never ran in execution orig");
    const inner = refusal(() =>
      rerunContext(flow, original, { fromNode: 'inner', executionId: 'n' }),
    );
    expect(inner.message).toContain("inside the body of 'd'");
    const unknown = refusal(() =>
      rerunContext(flow, original, { fromNode: 'nope', executionId: 'n' }),
    );
    expect(unknown.message).toBe("the flow has no node 'nope'");
    const notKept = refusal(() =>
      rerunContext(flow, original, {
        fromNode: 'b',
        executionId: 'n',
        results: { a: 1, d: 2 },
      }),
    );
    expect(notKept).toMatchObject({ path: 'results.d' });
    const itself = refusal(() =>
      rerunContext(flow, original, { fromNode: 'b', executionId: 'n', results: { b: 1 } }),
    );
    expect(itself).toMatchObject({ path: 'results.b' });
  });

  it('in a cycle, keeps what ran before the latest visit and refuses a node of an earlier round only', async () => {
    // start → count → check → (again → count | done): `again` runs in every round but the last.
    const cycle = parseFlow({
      flow_id: 'cycle',
      nodes: [
        { type: 'start', id: 'start', next: 'count' },
        {
          type: 'assignment',
          id: 'count',
          upstreamOutput: [
            { upstream: 'start', value: 1 },
            { upstream: 'again', value: '$F.add($NODE.again, 1)' },
          ],
          next: 'check',
        },
        {
          type: 'if',
          id: 'check',
          condition: { field: '$NODE.count', operator: 'lt', value: 3 },
          next: 'again',
          else_next: 'done',
        },
        { type: 'assignment', id: 'again', output: '$NODE.count', next: 'count' },
        { type: 'end', id: 'done', output: { count: '$NODE.count', again: '$NODE.again' } },
      ],
    });
    const original = await ranOriginal(cycle, {});
    expect(original.result).toEqual({ count: 3, again: 2 });
    const plan = rerunContext(cycle, original, { fromNode: 'done', executionId: 'r' });
    expect(plan.kept).toEqual(['start', 'count', 'check', 'again']);
    expect(plan.context.$VISITS).toMatchObject({ count: 3, again: 2 });
    // From the latest visit of `count`: the one after `again`, not the one after `start`.
    const fromCount = rerunContext(cycle, original, { fromNode: 'count', executionId: 'r' });
    expect(fromCount.context).toMatchObject({ $LAST_NODE: 'again', $NODE: { again: 2 } });
    const rerun = await finish(cycle, fromCount.context);
    expect(rerun.ran).toEqual(['count', 'check', 'done']);
    expect(rerun.outcome).toMatchObject({ result: { count: 3, again: 2 } });
    const earlier = refusal(() =>
      rerunContext(cycle, original, { fromNode: 'again', executionId: 'r' }),
    );
    expect(earlier.message).toContain('earlier round of a cycle');
  });
});
