import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateCorruptError } from '../../src/errors/state-errors.js';
import {
  decodeState,
  decodeValue,
  encodeState,
  encodeValue,
  fromTagged,
  toTagged,
} from '../../src/state/codec.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { codableContext, codableValue } from './arbitraries.js';
import { findDifference } from './strict-difference.js';

interface WellFormed {
  isWellFormed(): boolean;
}

function everyStringJsonbSafe(node: unknown): boolean {
  const safe = (s: string): boolean =>
    (s as unknown as WellFormed).isWellFormed() && !s.includes('\0');
  if (typeof node === 'string') return safe(node);
  if (typeof node !== 'object' || node === null) return true;
  return Object.entries(node).every(([key, child]) => safe(key) && everyStringJsonbSafe(child));
}

describe('codec properties', () => {
  it('decode(encode(v)) equals v, type for type', () => {
    fc.assert(
      fc.property(codableValue, (value) => {
        // Not toStrictEqual: it compares `.constructor` by identity, so an own `constructor`
        // key holding an object (which the arbitrary generates) fails even for equal values.
        expect(findDifference(decodeValue(encodeValue(value)), value)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('writes only strings and keys PostgreSQL jsonb accepts', () => {
    fc.assert(
      fc.property(codableValue, (value) => everyStringJsonbSafe(JSON.parse(encodeValue(value)))),
      { numRuns: 300 },
    );
  });

  it('is canonical: re-encoding a decoded value gives the same text', () => {
    fc.assert(
      fc.property(codableValue, (value) => {
        const text = encodeValue(value);
        expect(encodeValue(decodeValue(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips through toTagged and fromTagged embedded in another document', () => {
    fc.assert(
      fc.property(codableValue, (value) => {
        const document = JSON.parse(JSON.stringify({ data: toTagged(value) })) as { data: unknown };
        expect(findDifference(fromTagged(document.data), value)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('writes plain JSON for JSON-only values', () => {
    const plainKey = fc.string().filter((key) => key !== '~t');
    const json = fc
      .jsonValue({ maxDepth: 4 })
      .filter((value) => !JSON.stringify(value).includes('"~t"'));
    fc.assert(
      fc.property(fc.dictionary(plainKey, json), (value) => {
        const withoutNegativeZero = JSON.parse(JSON.stringify(value)) as unknown;
        expect(encodeValue(withoutNegativeZero)).toBe(JSON.stringify(withoutNegativeZero));
      }),
    );
  });

  it('round-trips whole execution states', () => {
    fc.assert(
      fc.property(codableContext, codableValue, (context, result) => {
        const state = newExecutionState({
          executionId: 'e1',
          context,
          result,
          status: 'completed',
        });
        const decoded = decodeState(encodeState(state));
        expect(findDifference(decoded, state)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});

/** JSON documents salted with tagged-looking nodes, valid or not. */
const taggedLooking = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('~t', 'v', 'a'), tie('node'), { maxKeys: 3 }),
    fc.record({
      '~t': fc.constantFrom(
        'undefined',
        'hole',
        'number',
        'bigint',
        'string',
        'object',
        'Date',
        'RegExp',
        'Set',
        'Map',
        'Buffer',
        'Int32Array',
        'x',
      ),
      v: tie('node'),
    }),
  ),
}));

describe('decoding untrusted text', () => {
  it('either returns a value or throws StateCorruptError', () => {
    const text = fc.oneof(
      fc.string(),
      taggedLooking.node.map((node) => JSON.stringify(node) ?? 'null'),
    );
    fc.assert(
      fc.property(text, (input) => {
        try {
          decodeValue(input);
        } catch (error) {
          expect(error).toBeInstanceOf(StateCorruptError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
