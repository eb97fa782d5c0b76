/**
 * Strings are indexed, measured and sliced by code point (Python `str` semantics), not by
 * UTF-16 unit. Each helper takes a fast path when the string holds no surrogate.
 */

const SURROGATE = /[\uD800-\uDFFF]/;

export function hasSurrogates(text: string): boolean {
  return SURROGATE.test(text);
}

export function codePointLength(text: string): number {
  if (!hasSurrogates(text)) return text.length;
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The code points of `text`, one string each (a lone surrogate stays one element). */
export function codePoints(text: string): string[] {
  return Array.from(text);
}

/** The code point index of the UTF-16 unit index `unitIndex` (which must start a code point). */
export function codePointIndexOf(text: string, unitIndex: number): number {
  if (!hasSurrogates(text)) return unitIndex;
  return codePointLength(text.slice(0, unitIndex));
}
