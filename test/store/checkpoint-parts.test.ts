import { describe, expect, it } from 'vitest';
import { StateCorruptError } from '../../src/errors.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { encodeState } from '../../src/state/codec.js';
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
      a: { startedAt: '2030-01-01T00:00:00.000Z', endedAt: null, attempts: 1, durationMs: null },
    },
  };

  it('the header holds neither the input nor the timings, only the input’s place', () => {
    const { header, entries } = encodeCheckpoint(state, undefined, 1 << 24);
    const decoded = JSON.parse(header) as Record<string, unknown> & {
      context: Record<string, unknown>;
    };
    expect(decoded.timings).toBeUndefined();
    expect(decoded.context.$INPUT).toBeNull();
    expect(Object.keys(decoded.context)).toEqual(['$EXECUTION_ID', '$INPUT', '$NODE']);
    expect(entries.map((e) => e.path)).toEqual(['$INPUT', '$NODE.a', 'state.timings.a']);
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
