import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../src/util/compare-code-points.js';

/**
 * One order serves the expression language (Python `str` order) and the stores (the UTF-8 byte
 * order their backends sort ids in): for well-formed text the two must agree.
 */
describe('compareCodePoints', () => {
  it('orders a character above U+FFFF after U+E000–U+FFFF, unlike `<`', () => {
    expect(compareCodePoints('\u{1F600}', '\uFFFF')).toBeGreaterThan(0);
    expect('\u{1F600}' < '\uFFFF').toBe(true);
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0);
    expect(compareCodePoints('é', 'é')).toBe(0);
  });

  it('agrees with the UTF-8 byte order on well-formed text', () => {
    const text = fc.string({ unit: 'grapheme-composite', maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        const bytes = Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
        expect(Math.sign(compareCodePoints(a, b))).toBe(bytes);
      }),
      { numRuns: 2000 },
    );
  });
});
