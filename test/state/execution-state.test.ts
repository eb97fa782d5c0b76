import { describe, expect, it } from 'vitest';
import { decodeState, encodeState } from '../../src/state/codec.js';
import {
  EXECUTION_STATUSES,
  findStateIssue,
  isTerminal,
  isValidExecutionId,
  MAX_APPLIED_EVENT_IDS,
  newExecutionState,
  parseExecutionState,
  rememberAppliedEventId,
} from '../../src/state/execution-state.js';
import type { ExecutionState } from '../../src/state/execution-state.js';

describe('newExecutionState', () => {
  it('fills the defaults', () => {
    const state = newExecutionState({ executionId: 'e1' });
    expect(state).toMatchObject({
      executionId: 'e1',
      tenantId: 'default',
      status: 'queued',
      flowId: null,
      flowVersion: null,
      flowHash: null,
      context: {},
      waiting: null,
      error: null,
      attempts: {},
      timings: {},
      inbox: [],
      appliedEventIds: [],
      manualRetries: 0,
      dedupKey: null,
      parentExecutionId: null,
      endedAt: null,
      version: 0,
    });
    expect(new Date(state.createdAt).toISOString()).toBe(state.createdAt);
    expect(state.updatedAt).toBe(state.createdAt);
    expect(findStateIssue(state)).toBeUndefined();
  });

  it('takes what it is given and ignores undefined fields', () => {
    const state = newExecutionState({
      executionId: 'e2',
      flowId: 'f',
      tenantId: 'acme',
      status: 'running',
      context: { $INPUT: 1 },
      createdAt: '2024-01-01T00:00:00.000Z',
      dedupKey: undefined,
    });
    expect(state).toMatchObject({
      flowId: 'f',
      tenantId: 'acme',
      status: 'running',
      context: { $INPUT: 1 },
      dedupKey: null,
    });
    expect(state.updatedAt).toBe('2024-01-01T00:00:00.000Z');
  });

  it.each(['', 'a:b', ':'])('refuses the execution id %j', (executionId) => {
    expect(isValidExecutionId(executionId)).toBe(false);
    expect(() => newExecutionState({ executionId })).toThrow(RangeError);
  });
});

describe('statuses', () => {
  it('knows which are terminal', () => {
    const terminal = EXECUTION_STATUSES.filter(isTerminal);
    expect(terminal).toEqual(['completed', 'error', 'cancelled']);
  });
});

describe('rememberAppliedEventId', () => {
  it('keeps the most recent ids up to the bound', () => {
    expect(rememberAppliedEventId(['a', 'b'], 'c', 2)).toEqual(['b', 'c']);
    let ids: string[] = [];
    for (let i = 0; i < MAX_APPLIED_EVENT_IDS + 5; i++)
      ids = rememberAppliedEventId(ids, `ev-${i}`);
    expect(ids).toHaveLength(MAX_APPLIED_EVENT_IDS);
    expect(ids[0]).toBe('ev-5');
  });
});

describe('state round trip', () => {
  const full: ExecutionState = {
    ...newExecutionState({
      executionId: 'e1',
      flowId: 'flow',
      flowVersion: '3',
      flowHash: 'ab'.repeat(32),
    }),
    status: 'suspended',
    context: {
      $INPUT: { at: new Date(0) },
      $NODE: { wait: { status: 'pending' } },
      $LAST_NODE: 'wait',
      $VISITS: { wait: 1 },
    },
    waiting: {
      nodeId: 'wait',
      eventType: 'approved',
      filter: { id: 7n },
      dueAt: '2024-01-02T00:00:00.000Z',
      subscriptionId: 's1',
    },
    attempts: { wait: 1 },
    timings: {
      wait: { startedAt: '2024-01-01T00:00:00.000Z', endedAt: null, attempts: 1, durationMs: null },
    },
    inbox: [
      {
        eventId: 'ev1',
        type: 'other',
        data: new Map([['k', new Set([1])]]),
        receivedAt: '2024-01-01T00:00:01.000Z',
      },
    ],
    appliedEventIds: ['ev0'],
    manualRetries: 1,
    dedupKey: 'order-7',
    parentExecutionId: 'p1',
    version: 12,
  };

  it('keeps every field, special values included', () => {
    const decoded = decodeState(encodeState(full));
    expect(decoded).toStrictEqual(full);
    expect(decoded.inbox[0]!.data).toBeInstanceOf(Map);
  });

  it('keeps an error record', () => {
    const failed: ExecutionState = {
      ...full,
      status: 'error',
      waiting: null,
      endedAt: '2024-01-03T00:00:00.000Z',
      error: {
        code: 'state_too_large',
        name: 'StateTooLargeError',
        message: 'big',
        retryable: false,
        node: 'n1',
        details: { bytes: 1 },
      },
    };
    expect(decodeState(encodeState(failed))).toStrictEqual(failed);
  });

  it('keeps a node id named __proto__ in per-node records', () => {
    const state = { ...full, attempts: JSON.parse('{"__proto__": 3}') as Record<string, number> };
    expect(Object.keys(decodeState(encodeState(state)).attempts)).toEqual(['__proto__']);
  });

  it('writes the header fields first and the context last', () => {
    const text = encodeState(full);
    expect(Object.keys(JSON.parse(text) as object).at(0)).toBe('executionId');
    expect(Object.keys(JSON.parse(text) as object).at(-1)).toBe('context');
  });

  it('returns only the known fields of a loaded record', () => {
    const record = { ...(JSON.parse(encodeState(full)) as object), addedLater: 1 };
    expect(parseExecutionState(record)).not.toHaveProperty('addedLater');
  });
});
