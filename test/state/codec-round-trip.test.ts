import { describe, expect, it } from 'vitest';
import {
  decodeState,
  decodeValue,
  encodeState,
  encodeValue,
  fromTagged,
  toTagged,
} from '../../src/state/codec.js';
import { newExecutionState } from '../../src/state/execution-state.js';
import { findDifference } from './strict-difference.js';

function roundTrip<T>(value: T): T {
  return decodeValue(encodeValue(value)) as T;
}

function expectRoundTrip(value: unknown): unknown {
  const decoded = roundTrip(value);
  expect(decoded).toStrictEqual(value);
  expect(findDifference(decoded, value)).toBeUndefined();
  return decoded;
}

interface WellFormed {
  isWellFormed(): boolean;
}

/** Every string and key in the encoded document is one PostgreSQL jsonb accepts. */
function jsonbSafe(text: string): boolean {
  const safe = (s: string): boolean =>
    (s as unknown as WellFormed).isWellFormed() && !s.includes('\0');
  const walk = (node: unknown): boolean => {
    if (typeof node === 'string') return safe(node);
    if (typeof node !== 'object' || node === null) return true;
    return Object.entries(node).every(([key, child]) => safe(key) && walk(child));
  };
  return walk(JSON.parse(text));
}

const sparse = [1, , 3, , ,]; // eslint-disable-line no-sparse-arrays

describe('codec round trip', () => {
  it.each<[string, unknown]>([
    ['JSON values', { a: 1, b: 'x', c: [true, false, null], d: { e: 1.5, f: -2 }, g: '' }],
    ['a valid Date', new Date('2024-05-01T10:00:00.123Z')],
    [
      'dates at the edges of the range',
      [new Date(8.64e15), new Date(-8.64e15), new Date('0050-06-01T00:00:00.000Z')],
    ],
    ['an invalid Date', new Date(NaN)],
    ['a Set', new Set([1, 'two', { three: 3 }, [4]])],
    [
      'a Map with mixed keys',
      new Map<unknown, unknown>([
        [{ k: 1 }, 'object key'],
        ['s', 1],
        [2, [2]],
        [null, null],
      ]),
    ],
    ['BigInts', [0n, -1n, 2n ** 100n, -(2n ** 70n)]],
    ['a Uint8Array', new Uint8Array([0, 1, 254, 255])],
    ['a Buffer', Buffer.from('héllo')],
    [
      'typed arrays',
      [
        new Int16Array([-1, 2]),
        new Float64Array([NaN, -0, 1.5]),
        new BigUint64Array([2n ** 64n - 1n]),
      ],
    ],
    [
      'an ArrayBuffer and a DataView',
      [new Uint8Array([1, 2]).buffer, new DataView(new Uint8Array([3, 4]).buffer)],
    ],
    ['undefined in objects and arrays', { a: undefined, b: [undefined, 1, undefined] }],
    ['undefined at top level', undefined],
    ['special numbers', [NaN, Infinity, -Infinity, -0, 0]],
    ['RegExps', [/a+b/gi, /\//, /x/dmsuy, new RegExp('')]],
    ['keys that collide with the tag key', { '~t': 'Date', v: 'not a date', nested: { '~t': 1 } }],
    ['an own __proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')],
    ['a sparse array', sparse],
    [
      'strings jsonb rejects',
      ['nul\u0000byte', 'lone \ud800 high', 'lone \udc00 low', 'pair 😀', 'slash \\u0000 text'],
    ],
    ['keys jsonb rejects', { 'a\u0000b': 1, '\udfff': { '\ud800x': 2 }, ok: 3 }],
    [
      'Map keys and Set items jsonb rejects',
      [new Map([['\u0000', '\ud800']]), new Set(['\udc00', '\u0000'])],
    ],
    [
      'nested special types',
      { dates: new Set([new Date(0)]), byKey: new Map([[new Date(1), new Set([1n])]]) },
    ],
  ])('keeps %s', (_name, value) => {
    expectRoundTrip(value);
  });

  it('keeps the seed case: a Set under $NODE and a Date beside it', () => {
    const context = { $NODE: { n1: { result: new Set([1, 2]) } }, dt: new Date() };
    const state = newExecutionState({ executionId: 'e1', context });
    const decoded = decodeState(encodeState(state));
    expect(decoded).toStrictEqual(state);
    expect((decoded.context['$NODE'] as { n1: { result: unknown } }).n1.result).toBeInstanceOf(Set);
    expect(decoded.context['dt']).toBeInstanceOf(Date);
  });

  it('keeps the exact type of binary values', () => {
    const [buffer, bytes] = roundTrip([Buffer.from([1]), new Uint8Array([1])]);
    expect(Buffer.isBuffer(buffer)).toBe(true);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(bytes)).toBe(false);
  });

  it('keeps only the bytes of a view, on a buffer of its own', () => {
    const whole = new Uint8Array([9, 8, 7, 6]);
    const decoded = roundTrip(whole.subarray(1, 3));
    expect([...decoded]).toEqual([8, 7]);
    expect(decoded.byteOffset).toBe(0);
    expect(decoded.buffer.byteLength).toBe(2);
  });

  it('keeps -0, NaN and the infinities as such', () => {
    const [negativeZero, nan, infinity] = roundTrip([-0, NaN, -Infinity]);
    expect(Object.is(negativeZero, -0)).toBe(true);
    expect(Number.isNaN(nan)).toBe(true);
    expect(infinity).toBe(-Infinity);
  });

  it('keeps Map and Set insertion order', () => {
    const map = roundTrip(
      new Map([
        ['z', 1],
        ['a', 2],
        ['m', 3],
      ]),
    );
    expect([...map.keys()]).toEqual(['z', 'a', 'm']);
    expect([...roundTrip(new Set([3, 1, 2]))]).toEqual([3, 1, 2]);
  });

  it('keeps holes apart from undefined', () => {
    const decoded = roundTrip([1, undefined, , 4]); // eslint-disable-line no-sparse-arrays
    expect(decoded).toHaveLength(4);
    expect(1 in decoded).toBe(true);
    expect(2 in decoded).toBe(false);
  });

  it('keeps an own __proto__ key as data, without touching prototypes', () => {
    const decoded = roundTrip(JSON.parse('{"__proto__": {"x": 1}, "d": {"~t": "q"}}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.keys(decoded)).toEqual(['__proto__', 'd']);
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it('decodes objects with a null prototype as plain objects', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, {
      a: 1,
      when: new Date(0),
    });
    const decoded = roundTrip(bare);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(decoded).toEqual({ a: 1, when: new Date(0) });
  });

  it('decodes shared references as separate copies', () => {
    const shared = { n: 1 };
    const decoded = roundTrip({ a: shared, b: shared, s: new Set([shared]) });
    expect(decoded.a).toEqual(decoded.b);
    expect(decoded.a).not.toBe(decoded.b);
  });

  it('stores what a getter returns', () => {
    const decoded = roundTrip({
      get answer() {
        return new Date(42);
      },
    });
    expect(Object.getOwnPropertyDescriptor(decoded, 'answer')).toMatchObject({
      value: new Date(42),
    });
  });

  it('ignores non-enumerable properties, symbol-keyed ones included', () => {
    const value = { a: 1 };
    Object.defineProperty(value, 'hidden', { value: 2, enumerable: false });
    Object.defineProperty(value, Symbol('meta'), { value: 3, enumerable: false });
    expect(roundTrip(value)).toStrictEqual({ a: 1 });
  });
});

describe('codec format', () => {
  it('writes JSON-only values exactly as JSON.stringify does', () => {
    const value = { $NODE: { n1: { result: [1, 'a', null, { b: true }] } }, $LAST_NODE: 'n1' };
    expect(encodeValue(value)).toBe(JSON.stringify(value));
  });

  it('writes readable tagged nodes', () => {
    const text = encodeValue({
      at: new Date('2024-05-01T10:00:00.000Z'),
      tags: new Set(['a']),
      n: 10n,
    });
    expect(text).toBe(
      '{"at":{"~t":"Date","v":"2024-05-01T10:00:00.000Z"},"tags":{"~t":"Set","v":["a"]},"n":{"~t":"bigint","v":"10"}}',
    );
  });

  it('writes strings jsonb rejects in the string tag, and nothing jsonb rejects', () => {
    const text = encodeValue({ s: 'a\u0000b\\c', '\ud800': 1 });
    expect(text).toBe(
      '{"~t":"object","v":[["s",{"~t":"string","v":"a\\\\u0000b\\\\\\\\c"}],[{"~t":"string","v":"\\\\ud800"},1]]}',
    );
    expect(jsonbSafe(text)).toBe(true);
  });

  it('does not change the value it encodes', () => {
    const value = { when: new Date(0), list: [1, undefined], deep: { n: NaN } };
    encodeValue(value);
    expect(value.when).toBeInstanceOf(Date);
    expect(value.list).toStrictEqual([1, undefined]);
    expect(value.deep.n).toBeNaN();
  });

  it('returns JSON-only subtrees as they are from toTagged (copy on write)', () => {
    const plain = { a: [1, 2] };
    const tagged = toTagged({ plain, special: new Date(0) }) as { plain: unknown };
    expect(tagged.plain).toBe(plain);
  });

  it('lets stores embed the tagged tree in their own documents', () => {
    const value = { at: new Date(5), bytes: Buffer.from([1, 2]), text: 'x\u0000' };
    const document = JSON.stringify({ id: 'e1', data: toTagged(value, '$NODE.n1') });
    const data = (JSON.parse(document) as { data: unknown }).data;
    expect(fromTagged(data)).toStrictEqual(value);
    expect(jsonbSafe(document)).toBe(true);
  });

  it('decodes JSON that holds no tag exactly as JSON.parse does', () => {
    const text = '{"a":[1,2,{"b":"~t"}],"c":"\\u0000"}';
    expect(decodeValue(text)).toStrictEqual(JSON.parse(text));
  });
});
