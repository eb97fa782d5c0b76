import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIsoTimestamp, parseIsoTimestamp } from '../../src/state/iso-timestamp.js';

const edges = [
  0, -1, 951_782_400_000, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 8.64e15,
  -8.64e15,
];

describe('ISO timestamps', () => {
  it('formats exactly as toISOString and reads the text back', () => {
    const date = fc.oneof(
      fc.date({ noInvalidDate: true }),
      fc.constantFrom(...edges.map((t) => new Date(t))),
    );
    fc.assert(
      fc.property(date, (d) => {
        const text = formatIsoTimestamp(d);
        expect(text).toBe(d.toISOString());
        expect(parseIsoTimestamp(text!)?.getTime()).toBe(d.getTime());
      }),
      { numRuns: 2000 },
    );
  });

  it('formats an invalid date as null', () => {
    expect(formatIsoTimestamp(new Date(NaN))).toBeNull();
  });

  it.each([
    '2024-02-30T00:00:00.000Z',
    '2023-02-29T00:00:00.000Z',
    '2024-01-01T24:00:00.000Z',
    '2024-01-01T00:60:00.000Z',
    '2024-13-01T00:00:00.000Z',
    '2024-01-01T00:00:00Z',
    '2024-01-01T00:00:00.000+00:00',
    '+002024-01-01T00:00:00.000Z',
    'yesterday',
  ])('refuses %s, which toISOString never writes', (text) => {
    expect(parseIsoTimestamp(text)).toBeUndefined();
  });
});
