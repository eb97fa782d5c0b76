import { describe, expect, it } from 'vitest';
import { newExecutionState } from '../../src/state/execution-state.js';
import {
  afterStep,
  countStart,
  toCancelled,
  toCompleted,
  toError,
  toRetried,
  toRewaiting,
  toRunning,
  toStillWaiting,
  toSuspended,
  unfinishedResumes,
  unfinishedStarts,
  withResumeCounted,
} from '../../src/worker/state-transitions.js';
import { parseTimerId, timerId } from '../../src/worker/wait-timers.js';
import { nodeVisit } from '../../src/state/checkpoint-context.js';

/**
 * The pure state builders the worker persists (fenced). Time is pinned: `now` is passed in.
 * What they must keep true: the crash-loop guard counts starts of an unfinished visit only; a
 * terminal state never keeps `waiting`; an error keeps the last good checkpoint as context.
 */
const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const fresh = () =>
  newExecutionState({ executionId: 'e1', flowHash: 'h', context: { $INPUT: { a: 1 } } });

describe('state transitions', () => {
  it('counts deliveries to a waiting node until one finishes; an operator retry starts the count over', () => {
    const waiting = { nodeId: 'w', eventType: 'go', timeoutMs: null, dueAt: null } as const;
    let state = toSuspended(toRunning(fresh(), 'w', T0), {}, waiting as never, null, at(1));
    expect(unfinishedResumes(state)).toBe(0);
    // Two deliveries began and killed their worker: both are counted, the wait is unchanged.
    state = withResumeCounted(withResumeCounted(state, at(2)), at(3));
    expect(unfinishedResumes(state)).toBe(2);
    expect(state.waiting).toMatchObject({ nodeId: 'w', eventType: 'go' });
    // A delivery that finished with the node still waiting: the count is spent.
    const after = toStillWaiting(withResumeCounted(state, at(4)), { x: 1 }, at(5));
    expect(unfinishedResumes(after)).toBe(0);
    expect(after.waiting).not.toHaveProperty('resumes');
    const retried = toRewaiting({ ...state, status: 'error' }, at(6));
    expect(unfinishedResumes(retried)).toBe(0);
    expect(retried.waiting?.nodeId).toBe('w');
  });

  it('counts a node start; a start of an unfinished visit counts toward the crash-loop guard', () => {
    let state = toRunning(fresh(), 'n1', T0);
    expect(state.status).toBe('running');
    expect(unfinishedStarts(state, 'n1')).toBe(1);
    // The worker died mid-node and the message came back: the same visit starts again.
    state = { ...state, ...countStart(state, 'n1', at(10)) };
    expect(unfinishedStarts(state, 'n1')).toBe(2);
    expect(state.attempts.n1).toBe(2);
    // It finished: its timing is closed, the next node's visit starts at one.
    state = afterStep(state, { $LAST_NODE: 'n1' }, 'n1', 'n2', at(25));
    expect(state.timings.n1).toMatchObject({ endedAt: at(25).toISOString(), durationMs: 15 });
    expect(unfinishedStarts(state, 'n1')).toBe(0);
    expect(unfinishedStarts(state, 'n2')).toBe(1);
    // A loop back to n1 is a new visit: its count starts over.
    state = afterStep(state, { $LAST_NODE: 'n2' }, 'n2', 'n1', at(30));
    expect(unfinishedStarts(state, 'n1')).toBe(1);
    expect(state.attempts.n1).toBe(3);
  });

  it('suspends with the due time, and ends without waiting', () => {
    const running = toRunning(fresh(), 'w', T0);
    const suspended = toSuspended(
      running,
      { $LAST_NODE: 'w' },
      {
        nodeId: 'w',
        eventType: 'go',
        filter: { k: 1 },
        dueAt: null,
        timeoutMs: 5_000,
        timer: 'timeout',
        timerData: null,
        subscriptionId: 's1',
        visit: 1,
      },
      at(5_000).getTime(),
      T0,
    );
    expect(suspended.status).toBe('suspended');
    expect(suspended.waiting).toEqual({
      nodeId: 'w',
      eventType: 'go',
      filter: { k: 1 },
      dueAt: at(5_000).toISOString(),
      subscriptionId: 's1',
      visit: 1,
      timer: 'timeout',
      timerData: null,
    });
    for (const ended of [
      toCompleted(suspended, { $LAST_NODE: 'end' }, 'end', { ok: true }, at(9)),
      toCancelled(suspended, 'stop', at(9)),
      toError(suspended, { code: 'x', name: 'X', message: 'm', retryable: false }, at(9)),
    ]) {
      expect(ended.waiting).toBeNull();
      expect(ended.endedAt).toBe(at(9).toISOString());
    }
  });

  it('an error keeps the last good checkpoint; a retry clears the failed node’s crash count', () => {
    let state = afterStep(
      toRunning(fresh(), 'n1', T0),
      { $LAST_NODE: 'n1', $NODE: { n1: 1 } },
      'n1',
      'n2',
      at(1),
    );
    state = { ...state, ...countStart(state, 'n2', at(2)) };
    expect(unfinishedStarts(state, 'n2')).toBe(2);
    const failed = toError(
      state,
      { code: 'node_crash_loop', name: 'E', message: 'm', retryable: false },
      at(3),
    );
    expect(failed.context).toEqual(state.context);
    expect(failed.status).toBe('error');
    const retried = toRetried(failed, 'n2', at(4));
    expect(retried).toMatchObject({
      status: 'running',
      error: null,
      endedAt: null,
      manualRetries: 1,
    });
    expect(unfinishedStarts(retried, 'n2')).toBe(1);
  });

  it('an error or a cancel closes the timing of the node under way: the timeline shows how long it ran', () => {
    const running = toRunning(fresh(), 'n1', T0);
    const error = { code: -9527, name: 'NodeExecutionError', message: 'boom', retryable: false };
    expect(toError(running, error, at(40)).timings.n1).toMatchObject({
      endedAt: at(40).toISOString(),
      durationMs: 40,
    });
    expect(toCancelled(running, 'stop', at(7)).timings.n1).toMatchObject({
      endedAt: at(7).toISOString(),
      durationMs: 7,
    });
  });

  it('cancelled records the reason as a non-retryable error', () => {
    expect(toCancelled(fresh(), 'operator', T0).error).toEqual({
      code: 'cancelled',
      name: 'Cancelled',
      message: 'operator',
      retryable: false,
    });
    expect(toCancelled(fresh(), null, T0).error).toBeNull();
  });

  it('a cancel names the node it cut short: the one under way, or the one waiting', () => {
    expect(toCancelled(toRunning(fresh(), 'n1', T0), 'stop', at(7)).error?.node).toBe('n1');
    const waiting = { nodeId: 'w', eventType: 'go', timeoutMs: null, dueAt: null } as const;
    const pending = { $INPUT: { a: 1 }, $LAST_NODE: 'w', $NODE: { w: { status: 'pending' } } };
    const suspended = toSuspended(
      toRunning(fresh(), 'w', T0),
      pending,
      waiting as never,
      null,
      at(1),
    );
    expect(toCancelled(suspended, 'stop', at(9)).error?.node).toBe('w');
    // Between nodes (queued, or a node that finished): no node was cut short.
    expect(toCancelled(fresh(), 'stop', at(9)).error).not.toHaveProperty('node');
  });
});

describe('wait timers', () => {
  it('a timer id names its execution, node, visit and kind, and parses back', () => {
    // Execution ids never hold ':' (docs/durable-contract.md §1); node ids may.
    const id = timerId('default', 'exec-1', 'node:x', 3, 'delay');
    expect(parseTimerId(id)).toEqual({ nodeId: 'node:x', visit: 3, kind: 'delay' });
    expect(parseTimerId(timerId('default', 'e', 'n', 1, 'timeout'))).toEqual({
      nodeId: 'n',
      visit: 1,
      kind: 'timeout',
    });
  });

  it("another tenant's timer id differs from the default tenant's for the same execution id", () => {
    const mine = timerId('default', 'order-1', 'd', 0, 'delay');
    const theirs = timerId('acme:eu/1', 'order-1', 'd', 0, 'delay');
    expect(theirs).not.toBe(mine);
    expect(theirs).not.toBe(timerId('acme', 'order-1', 'd', 0, 'delay'));
    expect(parseTimerId(theirs)).toEqual({ nodeId: 'd', visit: 0, kind: 'delay' });
  });

  it("the default tenant's execution id with a '/' never names another tenant's timer", () => {
    // A child execution of the default tenant (parent/node/visit/slot), or a caller's own id.
    const defaults = timerId('default', 'acme/order-1', 'd', 0, 'delay');
    expect(defaults).not.toBe(timerId('acme', 'order-1', 'd', 0, 'delay'));
    expect(defaults).not.toBe(timerId('%', 'order-1', 'd', 0, 'delay'));
    expect(parseTimerId(defaults)).toEqual({ nodeId: 'd', visit: 0, kind: 'delay' });
    // Ids without one keep the form timers already scheduled were written in.
    expect(timerId('default', 'order-1', 'd', 0, 'delay')).toBe('order-1:d:0:delay');
  });

  it('refuses what is not a timer id', () => {
    for (const bad of ['', 'e:n:1', 'e:n:x:delay', 'e:n:1:later'])
      expect(parseTimerId(bad)).toBeNull();
  });

  it("a node's visit is read from $VISITS (0 when the node never ran), never the prototype", () => {
    const state = { ...fresh(), context: { $VISITS: { n: 2 } } };
    expect(nodeVisit(state.context, 'n')).toBe(2);
    expect(nodeVisit(state.context, 'other')).toBe(0);
    expect(nodeVisit(state.context, 'constructor')).toBe(0);
  });
});
