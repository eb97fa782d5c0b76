import { toTaggedUnchecked } from '../state/to-tagged.js';

/**
 * A stored value as the API shows it: plain JSON stays as it is; what JSON cannot hold (Date,
 * Map, Set, BigInt, bytes, NaN, …) appears in the codec's readable tagged form
 * (`{"~t": "Date", "v": "…"}`, docs/state-codec.md), so nothing is silently changed on its way
 * out. Values were stored by the codec, so they can always be tagged.
 */
export function jsonView(value: unknown): unknown {
  return value === undefined ? null : toTaggedUnchecked(value);
}
