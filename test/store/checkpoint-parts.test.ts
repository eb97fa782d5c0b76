import { describe, expect, it } from 'vitest';
import { StateCorruptError } from '../../src/errors/state-errors.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { encodeState, encodeValue } from '../../src/state/codec.js';
import { timingKey } from '../../src/store/shared/node-key.js';
import {
  assembleState,
  encodeCheckpoint,
  isStoredAsEntries,
} from '../../src/store/checkpoint-parts.js';

/** The layout's own invariants, below the stores (the store contract covers the rest). */
describe('checkpoint parts', () => {
  const state = {
    ...newExecutionState({
      executionId: 'e1',
      flowHash: 'h',
      context: { $EXECUTION_ID: 'e1', $INPUT: { big: 'x'.repeat(1000) }, $NODE: { a: 1 } },
    }),
    timings: {
      a: {
        startedAt: '2030-01-01T00:00:00.000Z',
        endedAt: '2030-01-01T00:00:00.005Z',
        attempts: 1,
        durationMs: 5,
      },
      b: { startedAt: '2030-01-01T00:00:00.005Z', endedAt: null, attempts: 1, durationMs: null },
    },
  };

  it('the header holds neither the input nor finished timings: only the input’s place and the running node’s timing', () => {
    const { header, entries } = encodeCheckpoint(state, undefined, 1 << 24);
    const decoded = JSON.parse(header) as Record<string, unknown> & {
      context: Record<string, unknown>;
    };
    expect(decoded.timings).toBeUndefined();
    expect(decoded.openTimings).toEqual({ b: { at: 1, timing: state.timings.b } });
    expect(decoded.context.$INPUT).toBeNull();
    expect(Object.keys(decoded.context)).toEqual(['$EXECUTION_ID', '$INPUT', '$NODE']);
    expect(entries.map((e) => e.path)).toEqual(['$INPUT', '$NODE.a', 'state.timings.a']);
  });

  it('a step writes its node’s result and finished timing; the next node’s start rides in the header', () => {
    const next = {
      ...state,
      context: { ...state.context, $NODE: { a: 1, b: 2 } },
      timings: {
        ...state.timings,
        b: { ...state.timings.b, endedAt: '2030-01-01T00:00:00.009Z', durationMs: 4 },
        c: { startedAt: '2030-01-01T00:00:00.009Z', endedAt: null, attempts: 1, durationMs: null },
      },
    };
    const first = encodeCheckpoint(state, undefined, 1 << 24);
    const step = encodeCheckpoint(
      next,
      { nodes: ['b'], timings: ['b', 'c'], inputUnchanged: true },
      1 << 24,
    );
    expect(step.entries.map((e) => e.path)).toEqual(['$NODE.b', 'state.timings.b']);
    // Stored: the first save's entries, overwritten by the step's, under the step's header.
    const stored = new Map(first.entries.map((e) => [e.key, e.text]));
    for (const e of step.entries) stored.set(e.key, e.text);
    const loaded = assembleState(step.header, stored);
    expect(loaded).toEqual(next);
    expect(Object.keys(loaded.timings)).toEqual(['a', 'b', 'c']);
  });

  it('a node started again keeps its place, and its running timing wins over the entry of its last visit', () => {
    const again = {
      ...state,
      timings: {
        a: { startedAt: '2030-01-01T00:00:01.000Z', endedAt: null, attempts: 1, durationMs: null },
        b: { ...state.timings.b, endedAt: '2030-01-01T00:00:00.009Z', durationMs: 4 },
      },
    };
    const first = encodeCheckpoint(state, undefined, 1 << 24);
    const step = encodeCheckpoint(again, { nodes: [], timings: ['a', 'b'] }, 1 << 24);
    const stored = new Map(first.entries.map((e) => [e.key, e.text]));
    for (const e of step.entries) stored.set(e.key, e.text);
    const loaded = assembleState(step.header, stored);
    expect(loaded).toEqual(again);
    expect(Object.keys(loaded.timings)).toEqual(['a', 'b']);
  });

  it('a record whose running node’s timing is an entry (the release before) loads the same', () => {
    const { header, entries } = encodeCheckpoint(state, undefined, 1 << 24);
    const { openTimings, ...rest } = JSON.parse(header) as Record<string, unknown>;
    expect(openTimings).toBeDefined();
    const stored = new Map(entries.map((e) => [e.key, e.text]));
    stored.set(timingKey('b'), encodeValue({ at: 1, timing: state.timings.b }));
    const loaded = assembleState(JSON.stringify(rest), stored);
    expect(loaded).toEqual(state);
    expect(isStoredAsEntries(loaded)).toBe(true);
  });

  it('a record of this layout whose input entry is missing is corrupt, never a null input', () => {
    const { header, entries } = encodeCheckpoint(state, undefined, 1 << 24);
    const withoutInput = entries
      .filter((e) => e.path !== '$INPUT')
      .map((e) => [e.key, e.text] as const);
    expect(() => assembleState(header, withoutInput)).toThrow(StateCorruptError);
    expect(
      assembleState(
        header,
        entries.map((e) => [e.key, e.text] as const),
      ),
    ).toEqual(state);
  });

  it('only a state loaded from this layout may be saved with what changed named against it', () => {
    const { header, entries } = encodeCheckpoint(state, undefined, 1 << 24);
    const pairs = entries.map((e) => [e.key, e.text] as const);
    expect(isStoredAsEntries(assembleState(header, pairs))).toBe(true);
    // The layout before: timings and input in the header, only result entries.
    const legacy = encodeState({ ...state, context: { ...state.context, $NODE: {} } });
    const loaded = assembleState(
      legacy,
      pairs.filter(([key]) => !key.startsWith('\\')),
    );
    expect(loaded).toEqual(state);
    expect(isStoredAsEntries(loaded)).toBe(false);
    expect(isStoredAsEntries({ ...loaded })).toBe(false);
  });
});
