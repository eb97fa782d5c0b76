import { it } from 'vitest';
import { encodeValue, decodeValue } from '../../src/state/codec.js';
it('probe', () => {
  const v = { a: 1, d: new Date(0), s: new Set([1, 'x\u0000', NaN]), m: new Map<unknown, unknown>([[{k:1}, -0]]), u: undefined, arr: [1,,3], b: Buffer.from('hi'), f: new Float64Array([1.5]), r: /a\/b/gi, big: 10n, '~t': 'x', '\ud800': 2, __proto__x: 1 };
  const t = encodeValue(v);
  console.log(t);
  console.log(decodeValue(t));
  try { encodeValue({ $NODE: { n1: { result: { fn: function run() {} } } } }); } catch (e) { console.log(String(e)); }
  const c: any = { x: {} }; c.x.self = c;
  try { encodeValue(c); } catch (e) { console.log(String(e)); }
});
