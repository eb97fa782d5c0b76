/**
 * The vocabulary of the tagged JSON format shared by the encoder and the decoder.
 * The format itself is described at the top of `codec.ts` and in `docs/state-codec.md`.
 */

/** The key that marks a tagged node: `{"~t": "<tag>", "v": <payload>}`. */
export const TAG = '~t';
/** The payload key of a tagged node. */
export const PAYLOAD = 'v';

/** A tagged node as it appears in the JSON tree. */
export interface TaggedNode {
  [TAG]: string;
  [PAYLOAD]?: unknown;
}

export function tagged(tag: string, payload: unknown): TaggedNode {
  return { [TAG]: tag, [PAYLOAD]: payload };
}

/** Tags without payload: `{"~t": "undefined"}` and `{"~t": "hole"}` (an array hole). */
export function bareTag(tag: 'undefined' | 'hole'): TaggedNode {
  return { [TAG]: tag };
}

/** Deeper nesting is refused on encode and treated as corruption on decode. */
export const MAX_DEPTH = 1000;

/** Special numbers, stored by name in a `number` tag. */
export function specialNumberName(value: number): string | undefined {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return Object.is(value, -0) ? '-0' : undefined;
}

export const SPECIAL_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
  ['-0', -0],
]);

export { setOwn } from '../util/own-record.js';
