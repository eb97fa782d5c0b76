import { describe, expect, it } from 'vitest';
import { Stepper } from '../../src/engine/stepper.js';
import { parseFlow, runStep, type StepOutcome } from '../../src/index.js';

/**
 * The engine's live stepper: one execution kept across the steps of a delivery, each outcome
 * naming the node the next step runs — by the same rule as the walk (successor.ts), which the
 * worker's old look-ahead once contradicted on an empty branch name.
 */
const branching = parseFlow({
  flow_id: 'peek',
  nodes: [
    { type: 'start', id: 'start', next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      branches: [
        { condition: { field: '$INPUT.x', operator: 'eq', value: 1 }, next: 'one' },
        { isDefault: true, next: 'other' },
      ],
    },
    { type: 'end', id: 'one' },
    { type: 'end', id: 'other' },
  ],
});

const chain = parseFlow({
  flow_id: 'chain',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: { v: '$F.add($INPUT.i, 1)' }, next: 'b' },
    { type: 'assignment', id: 'b', output: { v: '$F.add($NODE.a.v, 1)' }, next: 'c' },
    { type: 'assignment', id: 'c', output: { v: '$F.add($NODE.b.v, 1)' }, next: 'end' },
    { type: 'end', id: 'end', output: '$NODE.c.v' },
  ],
});

describe('Stepper', () => {
  it('names the next node before the first step, after each step, and none after the end', async () => {
    const stepper = new Stepper(chain, { input: { i: 1 }, executionId: 'e1' });
    expect(stepper.nextNodeId).toBe('a');
    const ids: (string | null)[] = [];
    let outcome: StepOutcome;
    do {
      outcome = await stepper.step();
      ids.push(
        outcome.step?.nodeId ?? null,
        outcome.status === 'failed' ? null : outcome.nextNodeId,
      );
    } while (outcome.status === 'advanced');
    stepper.dispose();
    expect(ids).toEqual(['a', 'b', 'b', 'c', 'c', 'end', 'end', null]);
    expect(outcome).toMatchObject({ status: 'completed', result: 4 });
  });

  it('gives, step by step, what runStep gives from each checkpoint (contexts and changed nodes)', async () => {
    const live = new Stepper(chain, { input: { i: 5 }, executionId: 'e2' });
    let fromCheckpoint = await runStep(chain, { input: { i: 5 }, executionId: 'e2' });
    for (;;) {
      const step = await live.step();
      expect(step.status).toBe(fromCheckpoint.status);
      expect(step.context).toEqual(fromCheckpoint.context);
      if (step.status === 'failed' || fromCheckpoint.status === 'failed') break;
      expect(step.changedNodes).toEqual(fromCheckpoint.changedNodes);
      if (step.status !== 'advanced') break;
      fromCheckpoint = await runStep(chain, { checkpoint: fromCheckpoint.context });
    }
    live.dispose();
  });

  it('after a branching node: its branch when it names a target, else none', () => {
    const at = (checkpoint: Record<string, unknown>) =>
      new Stepper(branching, { checkpoint: { $EXECUTION_ID: 'e', $NODE: {}, ...checkpoint } })
        .nextNodeId;
    expect(new Stepper(branching, { input: {} }).nextNodeId).toBe('sw');
    expect(at({ $LAST_NODE: 'sw', $BRANCH: 'one' })).toBe('one');
    expect(at({ $LAST_NODE: 'sw', $BRANCH: 'nowhere' })).toBeNull();
    expect(at({ $LAST_NODE: 'sw', $BRANCH: '' })).toBeNull();
    expect(at({ $LAST_NODE: 'one' })).toBeNull();
    expect(at({ $LAST_NODE: 'gone' })).toBeNull();
  });

  it('a failed step hands back the last good checkpoint and the next step starts from it', async () => {
    const failing = parseFlow({
      flow_id: 'failing',
      nodes: [
        { type: 'start', id: 'start', next: 'a' },
        { type: 'assignment', id: 'a', output: { v: 1 }, next: 'b' },
        { type: 'assignment', id: 'b', output: { v: '$F.divide(1, $INPUT.zero)' }, next: 'end' },
        { type: 'end', id: 'end' },
      ],
    });
    const stepper = new Stepper(failing, { input: { zero: 0 }, executionId: 'e3' });
    const first = await stepper.step();
    expect(first.status).toBe('advanced');
    const failed = await stepper.step();
    expect(failed.status).toBe('failed');
    expect(failed.context).toBe(first.context);
    expect(stepper.nextNodeId).toBe('b');
    stepper.dispose();
  });
});
