import { describe, expect, it } from 'vitest';
import {
  FlowError,
  parseFlow,
  runStep,
  stepFlow,
  type FlowHooks,
  type Step,
} from '../../src/index.js';
import { readFileSync } from 'node:fs';

const approval = parseFlow(
  readFileSync(new URL('../../examples/approval.json', import.meta.url), 'utf8'),
);
const approvalInput = {
  id: 'EXP-7',
  requester: 'Bob',
  amount: 120.5,
  reason: 'conference travel',
  approvers: ['alice@example.com'],
};

function envelope(decision: 'approve' | 'reject'): Record<string, unknown> {
  return {
    event_id: 'evt-1',
    event_type: 'approval_decision',
    subscription_id: 'sub-1',
    event_data: {
      node_id: 'approve',
      flow_id: 'expense_approval',
      trigger_type: 'approval_completed',
      final_decision: decision,
      approval_details: [
        { approver_id: 'alice@example.com', decision, comments: 'ok', timestamp: 1767225600000 },
      ],
      success: true,
    },
  };
}

const subscriptions = () => {
  const subscribed: string[] = [];
  const released: string[] = [];
  return {
    subscribed,
    released,
    events: {
      subscribe: (r: { nodeId: string }) => {
        subscribed.push(r.nodeId);
        return `sub-${r.nodeId}`;
      },
      unsubscribe: (id: string) => {
        released.push(id);
      },
    },
  };
};

describe('distributed mode (runStep)', () => {
  it('walks the approval example: start+prepare, suspend, resume, decide, end', async () => {
    const subs = subscriptions();
    const options = { events: subs.events };
    const s1 = await runStep(approval, { input: approvalInput, executionId: 'exec-1' }, options);
    expect(s1.status).toBe('advanced');
    expect(s1.step?.nodeId).toBe('prepare');
    expect(s1.step?.result).toEqual({
      title: 'Expense EXP-7',
      content: 'Bob asks for 120.5 EUR: conference travel',
      approvers: ['alice@example.com'],
    });

    const s2 = await runStep(approval, { checkpoint: s1.context }, options);
    expect(s2.status).toBe('suspended');
    const state = s2.step!.result as {
      status: string;
      event_type: string;
      subscription_id: string;
      service_config: { approver_config: { approvers: string[] } };
    };
    expect(s2.step).toMatchObject({ nodeId: 'approve', isSuspend: true });
    expect(state.status).toBe('pending');
    expect(state.event_type).toBe('approval_decision');
    expect(state.subscription_id).toBe('sub-approve');
    expect(state.service_config.approver_config.approvers).toEqual(['alice@example.com']);
    expect(s2.status === 'suspended' && s2.waiting).toMatchObject({
      nodeId: 'approve',
      eventType: 'approval_decision',
      subscriptionId: 'sub-approve',
    });

    // A pending event cannot be skipped.
    const skipped = await runStep(approval, { checkpoint: s2.context }, options);
    expect(skipped.status).toBe('failed');
    expect(skipped.status === 'failed' && skipped.error).toMatchObject({
      code: -500,
      type: 'flow_error',
    });

    const E = envelope('approve');
    const s3 = await runStep(
      approval,
      { checkpoint: s2.context, resume: { type: 'event', data: E } },
      options,
    );
    expect(s3.step).toMatchObject({
      nodeId: 'approve',
      isSuspend: false,
      isEnd: false,
      branch: '',
    });
    expect((s3.step!.result as Record<string, unknown>).status).toBe('completed');
    expect((s3.step!.result as Record<string, unknown>).event_data).toEqual(E);
    expect(subs.released).toEqual(['sub-approve']);

    const s4 = await runStep(approval, { checkpoint: s3.context }, options);
    expect(s4.step).toMatchObject({ nodeId: 'decide', result: 'approved', branch: 'approved' });
    const s5 = await runStep(approval, { checkpoint: s4.context }, options);
    expect(s5.status).toBe('completed');
    expect(s5.step).toMatchObject({
      isEnd: true,
      result: { status: 'approved', expense: 'EXP-7', decidedBy: 'alice@example.com' },
    });
    // Past the end: a synthetic end step, not an error.
    const s6 = await runStep(approval, { checkpoint: s5.context }, options);
    expect(s6.step).toMatchObject({ nodeId: null, isEnd: true, name: 'end' });
  });

  it('takes the contract form too: runStep(flow, checkpoint, {resume})', async () => {
    const subs = subscriptions();
    const s1 = await runStep(approval, null, {
      events: subs.events,
      input: approvalInput,
      executionId: 'exec-contract',
    });
    expect(s1.step?.nodeId).toBe('prepare');
    expect(s1.context?.$EXECUTION_ID).toBe('exec-contract');
    const s2 = await runStep(approval, s1.context, { events: subs.events });
    expect(s2.status).toBe('suspended');
    const s3 = await runStep(approval, s2.context, {
      events: subs.events,
      resume: { type: 'event', data: envelope('approve') },
    });
    expect(s3.step).toMatchObject({ nodeId: 'approve', isSuspend: false });
    const s4 = await runStep(approval, s3.context, { events: subs.events });
    expect(s4.step).toMatchObject({ nodeId: 'decide', result: 'approved' });
  });

  it('rejects when the decision is reject', async () => {
    const { events } = subscriptions();
    let out = await runStep(approval, { input: approvalInput }, { events });
    out = await runStep(approval, { checkpoint: out.context }, { events });
    out = await runStep(
      approval,
      { checkpoint: out.context, resume: { type: 'event', data: envelope('reject') } },
      { events },
    );
    out = await runStep(approval, { checkpoint: out.context }, { events });
    expect(out.step?.result).toBe('rejected');
    out = await runStep(approval, { checkpoint: out.context }, { events });
    expect(out.step?.result).toEqual({
      status: 'rejected',
      expense: 'EXP-7',
      approvalState: 'completed',
    });
  });

  it('never suspends without a subscription: no events option fails the step', async () => {
    const s1 = await runStep(approval, { input: approvalInput });
    const s2 = await runStep(approval, { checkpoint: s1.context });
    expect(s2.status).toBe('failed');
    if (s2.status !== 'failed') return;
    expect(s2.error).toBeInstanceOf(FlowError);
    expect(s2.error.message).toContain('subscribe');
    expect(s2.context).toBe(s1.context); // the host re-sends the last good checkpoint
  });

  it('rejects invalid resumes with typed errors', async () => {
    const first = await runStep(approval, { input: approvalInput });
    const noSuspend = await runStep(approval, {
      checkpoint: first.context,
      resume: { type: 'event', data: { x: 1 } },
    });
    expect(noSuspend.status === 'failed' && noSuspend.error.message).toContain(
      'not a suspending node',
    );
    const badType = await runStep(approval, {
      checkpoint: first.context,
      resume: { type: 'bogus' as 'event' },
    });
    expect(badType.status === 'failed' && badType.error.message).toContain(
      'unsupported resume type',
    );
    const noCheckpoint = await runStep(approval, { resume: { type: 'timeout' } });
    expect(noCheckpoint.status === 'failed' && noCheckpoint.error.message).toContain(
      'needs a checkpoint',
    );
  });

  it('timeout and cancel resumes set the state', async () => {
    const { events } = subscriptions();
    const s1 = await runStep(approval, { input: approvalInput }, { events });
    const s2 = await runStep(approval, { checkpoint: s1.context }, { events });
    const timedOut = await runStep(
      approval,
      { checkpoint: s2.context, resume: { type: 'timeout' } },
      { events },
    );
    expect((timedOut.step!.result as Record<string, unknown>).status).toBe('timeout');
    const cancelled = await runStep(
      approval,
      { checkpoint: s2.context, resume: { type: 'cancel' } },
      { events },
    );
    expect((cancelled.step!.result as Record<string, unknown>).status).toBe('cancelled');
    const empty = await runStep(
      approval,
      { checkpoint: s2.context, resume: { type: 'event', data: {} } },
      { events },
    );
    expect((empty.step!.result as Record<string, unknown>).status).toBe('pending');
  });

  it('accepts a checkpoint written by the original engine (no $VISITS) and never mutates the one it is given', async () => {
    const s1 = await runStep(approval, { input: approvalInput });
    const legacy: Record<string, unknown> = { ...s1.context };
    delete legacy.$VISITS;
    const frozen = JSON.stringify(legacy);
    const { events } = subscriptions();
    const s2 = await runStep(approval, { checkpoint: legacy }, { events });
    expect(s2.status).toBe('suspended');
    expect(JSON.stringify(legacy)).toBe(frozen);
  });

  it('idempotency keys are stable per visit and derived child ids are deterministic', async () => {
    const seen: string[] = [];
    const { defaultRegistry, defineNode } = await import('../../src/index.js');
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'probe',
        run: (ctx) => {
          seen.push(ctx.idempotencyKey);
          return ctx.executionId;
        },
      }),
    );
    const flow = parseFlow(
      {
        flow_id: 'p',
        nodes: [
          { type: 'start', id: 's', next: 'p' },
          { type: 'probe', id: 'p', next: 'e' },
          { type: 'end', id: 'e', output: '$NODE.p' },
        ],
      },
      { registry },
    );
    const a = await runStep(flow, { input: {}, executionId: 'ex1' });
    const retry = await runStep(flow, { input: {}, executionId: 'ex1' });
    expect(seen).toEqual(['ex1:p:1', 'ex1:p:1']);
    expect(a.step?.executionId).toBe('ex1');
    expect(retry.status).toBe('advanced');
  });
});

describe('step mode (stepFlow)', () => {
  const flow = parseFlow({
    flow_id: 'steps',
    nodes: [
      { type: 'start', id: 'start', next: 'a' },
      { type: 'assignment', id: 'a', output: { when: 1 }, next: 'pop' },
      { type: 'assignment', id: 'pop', output: '$F.pop($INPUT.xs, 0)', next: 'end' },
      { type: 'end', id: 'end', output: '$INPUT.xs' },
    ],
  });

  it('yields every node, start included; earlier step contexts never change', async () => {
    const steps: Step[] = [];
    for await (const step of stepFlow(flow, { xs: [1, 2, 3] })) steps.push(step);
    expect(steps.map((s) => s.nodeId)).toEqual(['start', 'a', 'pop', 'end']);
    expect(steps.at(-1)).toMatchObject({ isEnd: true, result: [2, 3], isSuspend: false });
    // $F.pop mutated the live $INPUT after step 'a' was taken: the snapshot keeps [1,2,3].
    expect((steps[1]!.context.$INPUT as { xs: number[] }).xs).toEqual([1, 2, 3]);
    expect(steps[1]!.context.$NODE).toEqual({ start: null, a: { when: 1 } });
    expect(steps[2]!.context.$VISITS).toEqual({ start: 1, a: 1, pop: 1 });
  });

  it('keeps value types in step contexts (no JSON round trip) and copying never throws', async () => {
    const { defaultRegistry, defineNode } = await import('../../src/index.js');
    const when = new Date('2026-01-02T03:04:05Z');
    const registry = defaultRegistry.copy().register(
      defineNode({
        type: 'rich',
        run: () => ({
          when,
          tags: new Set(['a']),
          index: new Map([['k', 1]]),
          big: 10n,
          fn: () => 1,
        }),
      }),
    );
    const rich = parseFlow(
      {
        nodes: [
          { type: 'start', id: 's', next: 'r' },
          { type: 'rich', id: 'r', next: 'e' },
          { type: 'end', id: 'e', output: '$F.concat("x")' },
        ],
      },
      { registry },
    );
    const steps: Step[] = [];
    for await (const step of stepFlow(rich, {})) steps.push(step);
    const r = (
      steps[1]!.context.$NODE as Record<
        string,
        { when: unknown; tags: unknown; index: Map<string, number>; big: unknown }
      >
    ).r!;
    expect(r.when).toBeInstanceOf(Date);
    expect(r.tags).toBeInstanceOf(Set);
    expect(r.index.get('k')).toBe(1);
    expect(r.big).toBe(10n);
  });

  it('ends through the escape hatch with a synthetic end step', async () => {
    const escape = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: 5, errorHandler: { strategy: 'continue' } },
      ],
    });
    const steps: Step[] = [];
    for await (const step of stepFlow(escape, {})) steps.push(step);
    expect(steps.at(-1)).toMatchObject({
      nodeId: null,
      type: 'end',
      name: 'end',
      isEnd: true,
      result: { s: null, a: 5 },
    });
  });

  it('closing the generator early fires onFlowEnd with result null', async () => {
    const ends: unknown[] = [];
    const hooks: FlowHooks = { onFlowEnd: (e) => void ends.push(e.result) };
    for await (const step of stepFlow(flow, { xs: [1] }, { hooks })) {
      if (step.nodeId === 'a') break;
    }
    expect(ends).toEqual([null]);
  });
});

describe('reading the engine maps', () => {
  it('an end node returning $NODE gets a snapshot, not the live map (no self-containing result)', async () => {
    const { runFlow, encodeValue } = await import('../../src/index.js');
    const flow = parseFlow({
      nodes: [
        { type: 'start', id: 's', next: 'a' },
        { type: 'assignment', id: 'a', output: { all: '$NODE' }, next: 'e' },
        { type: 'end', id: 'e', output: '$NODE' },
      ],
    });
    const result = (await runFlow(flow, {})) as Record<string, unknown>;
    expect(result).toEqual({ s: null, a: { all: { s: null } } });
    expect(() => encodeValue(result)).not.toThrow();
  });
});
