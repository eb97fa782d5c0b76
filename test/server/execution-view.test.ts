import { describe, expect, it } from 'vitest';
import { executionView } from '../../src/server/execution-view.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { withEntryTiming } from '../../src/worker/state-transitions.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
const timing = (ms: number) => ({
  startedAt: at(ms),
  endedAt: at(ms + 1),
  attempts: 1,
  durationMs: 1,
});

describe('the node timeline of an execution view', () => {
  it('is in order of execution when node ids look like integers (a JS object puts those first)', () => {
    const state = newExecutionState({
      executionId: 'e1',
      flowId: 'f',
      status: 'completed',
      createdAt: at(0),
      updatedAt: at(50),
    });
    // Recorded as the worker records them: start, then "20", then "3", then end.
    state.timings = { start: timing(1), '20': timing(10), '3': timing(20), end: timing(30) };
    expect(Object.keys(state.timings)).toEqual(['3', '20', 'start', 'end']);
    const view = executionView(state, null, null);
    expect(view.nodes.map((n) => n.nodeId)).toEqual(['start', '20', '3', 'end']);
  });

  it('the entry node takes the earliest start, not the first key', () => {
    const state = newExecutionState({
      executionId: 'e2',
      flowId: 'f',
      status: 'running',
      createdAt: at(0),
      updatedAt: at(50),
    });
    state.timings = { a: timing(5), '7': timing(40) };
    const withEntry = withEntryTiming(state, 's');
    expect(withEntry.timings.s?.startedAt).toBe(at(5));
    expect(executionView(withEntry, null, null).nodes.map((n) => n.nodeId)).toEqual([
      's',
      'a',
      '7',
    ]);
  });

  it('a node a cancel cut short is cancelled, not done; the nodes that finished before it are done', () => {
    const state = newExecutionState({
      executionId: 'e3',
      flowId: 'f',
      status: 'cancelled',
      createdAt: at(0),
      updatedAt: at(50),
    });
    state.timings = { start: timing(1), call: timing(10) };
    state.error = {
      code: 'cancelled',
      name: 'Cancelled',
      message: 'cancelled through the API',
      retryable: false,
      node: 'call',
    };
    expect(executionView(state, null, null).nodes.map((n) => [n.nodeId, n.status])).toEqual([
      ['start', 'done'],
      ['call', 'cancelled'],
    ]);
  });
});
