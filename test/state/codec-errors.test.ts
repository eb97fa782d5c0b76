import { describe, expect, it } from 'vitest';
import {
  StateCorruptError,
  StateSerializationError,
  StateTooLargeError,
} from '../../src/errors/state-errors.js';
import { decodeState, decodeValue, encodeState, encodeValue } from '../../src/state/codec.js';
import { newExecutionState } from '../../src/state/execution-state.js';

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function expectUnserializable(action: () => unknown, path: string, valueType: string): void {
  const error = thrown(action);
  expect(error).toBeInstanceOf(StateSerializationError);
  expect(error).not.toBeInstanceOf(TypeError);
  const e = error as StateSerializationError;
  expect(e.code).toBe('state_not_serializable');
  expect(e.retryable).toBe(false);
  expect(e.path).toBe(path);
  expect(e.valueType).toBe(valueType);
  expect(e.message).toContain(path);
  expect(e.message).toContain(valueType);
}

function expectCorrupt(text: string, fragment: string): void {
  const error = thrown(() => decodeValue(text));
  expect(error).toBeInstanceOf(StateCorruptError);
  expect((error as StateCorruptError).retryable).toBe(false);
  expect((error as StateCorruptError).code).toBe('state_corrupt');
  expect((error as Error).message).toContain(fragment);
}

class Socket {}
class MyMap extends Map {}
const cyclic: Record<string, unknown> = { name: 'loop' };
cyclic['self'] = cyclic;
const cyclicSet = new Set<unknown>();
cyclicSet.add(cyclicSet);
const withSymbolKey = { ok: 1, [Symbol('meta')]: 2 };

describe('encode rejects what cannot round-trip', () => {
  it.each<[string, unknown, string, string]>([
    ['a named function', { fn: function run() {} }, '$.fn', 'function run'],
    [
      'an anonymous function',
      [
        (
          () => () =>
            1
        )(),
      ],
      '$[0]',
      'function (anonymous)',
    ],
    ['a symbol', { s: Symbol('x') }, '$.s', 'symbol Symbol(x)'],
    [
      'a symbol-keyed property',
      { obj: withSymbolKey },
      '$.obj[Symbol(meta)]',
      'symbol-keyed property',
    ],
    ['a class instance', { client: new Socket() }, '$.client', 'instance of Socket'],
    ['an Error', { e: new TypeError('x') }, '$.e', 'instance of TypeError'],
    ['a boxed primitive', { n: Object(1) }, '$.n', 'instance of Number'],
    ['a subclass of a supported class', { m: new MyMap() }, '$.m', 'instance of MyMap'],
    [
      'an object with a custom prototype',
      { o: Object.create({}) },
      '$.o',
      'object with a custom prototype',
    ],
    ['a WeakMap', { w: new WeakMap() }, '$.w', 'WeakMap'],
    ['a WeakSet', { w: new WeakSet() }, '$.w', 'WeakSet'],
    ['a promise', { p: Promise.resolve(1) }, '$.p', 'promise'],
    [
      'a SharedArrayBuffer',
      { b: new SharedArrayBuffer(1) },
      '$.b',
      'instance of SharedArrayBuffer',
    ],
    ['a cycle', { a: { b: cyclic } }, '$.a.b.self', 'cycle'],
    ['a cycle through a Set', { s: cyclicSet }, '$.s<set item #0>', 'cycle'],
    [
      'a value at an array index',
      { list: [1, 2, 3, () => 1] },
      '$.list[3]',
      'function (anonymous)',
    ],
    [
      'a key that is not a plain name',
      { 'a b': { x: Symbol.iterator } },
      '$["a b"].x',
      'symbol Symbol(Symbol.iterator)',
    ],
    ['a Map value', { m: new Map([['k', Symbol('v')]]) }, '$.m<map key "k">', 'symbol Symbol(v)'],
    [
      'a Map value under a number key',
      { m: new Map([[7, new Socket()]]) },
      '$.m<map key 7>',
      'instance of Socket',
    ],
    [
      'a Map value under an object key',
      { m: new Map([[{}, new Socket()]]) },
      '$.m<map entry #0>',
      'instance of Socket',
    ],
    [
      'a Map key',
      { m: new Map([[new Socket(), 1]]) },
      '$.m<map entry #0 key>',
      'instance of Socket',
    ],
    [
      'a value inside an escaped object',
      { o: { '~t': new Socket() } },
      '$.o["~t"]',
      'instance of Socket',
    ],
  ])('rejects %s', (_name, value, path, valueType) => {
    expectUnserializable(() => encodeValue(value), path, valueType);
  });

  it('names the path from the context root in encodeState', () => {
    const state = newExecutionState({
      executionId: 'e1',
      context: { $NODE: { fetch: { result: { client: new Socket() } } } },
    });
    expectUnserializable(
      () => encodeState(state),
      '$NODE.fetch.result.client',
      'instance of Socket',
    );
  });

  it('names a function at $NODE.n1.result.fn', () => {
    const state = newExecutionState({
      executionId: 'e1',
      context: { $NODE: { n1: { result: { fn: function run() {} } } } },
    });
    expectUnserializable(() => encodeState(state), '$NODE.n1.result.fn', 'function run');
  });

  it('names a cycle under $NODE', () => {
    const result: Record<string, unknown> = {};
    result['again'] = { back: result };
    const state = newExecutionState({
      executionId: 'e1',
      context: { $NODE: { 'fetch-user': { result } } },
    });
    expectUnserializable(() => encodeState(state), '$NODE.fetch-user.result.again.back', 'cycle');
  });

  it('names fields outside the context from `state`', () => {
    const state = newExecutionState({ executionId: 'e1', result: { handle: new WeakMap() } });
    expectUnserializable(() => encodeState(state), 'state.result.handle', 'WeakMap');
  });

  it('uses the root the caller names', () => {
    expectUnserializable(
      () => encodeValue({ fn: Math.max }, '$NODE.n1'),
      '$NODE.n1.fn',
      'function max',
    );
  });

  it('refuses nesting deeper than 1000 levels', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 1001; i++) deep = [deep];
    const error = thrown(() => encodeValue(deep));
    expect(error).toBeInstanceOf(StateSerializationError);
    expect((error as StateSerializationError).valueType).toBe('nesting deeper than 1000 levels');
  });

  it('accepts shared references that are not cycles', () => {
    const shared = { n: 1 };
    expect(() =>
      encodeValue({ a: shared, b: [shared, shared], c: new Map([[shared, shared]]) }),
    ).not.toThrow();
  });

  it('rejects a state whose own fields break the schema', () => {
    const state = { ...newExecutionState({ executionId: 'e1' }), status: 'paused' } as never;
    const error = thrown(() => encodeState(state));
    expect(error).toBeInstanceOf(StateSerializationError);
    expect((error as StateSerializationError).path).toBe('state.status');
  });
});

describe('decode rejects what is not a valid encoding', () => {
  it.each<[string, string, string]>([
    ['text that is not JSON', '{"a":', 'not JSON'],
    ['empty text', '', 'not JSON'],
    ['an unknown tag', '{"a":[1,{"~t":"Socket","v":{}}]}', 'unknown tag "Socket" at $.a[1]'],
    ['a tag that is not a string', '{"~t":1,"v":2}', 'not a tag name at $'],
    [
      'a tagged node with an extra key',
      '{"~t":"Date","v":"2024-01-01T00:00:00.000Z","x":1}',
      'malformed "Date" node',
    ],
    ['a tagged node without its payload', '{"~t":"Set"}', 'malformed "Set" node'],
    ['undefined with a payload', '{"~t":"undefined","v":1}', 'malformed "undefined" node'],
    [
      'a date that toISOString would not write',
      '{"~t":"Date","v":"2024-02-31T00:00:00.000Z"}',
      'malformed "Date"',
    ],
    ['a date in another format', '{"~t":"Date","v":"2024-01-01"}', 'malformed "Date"'],
    ['a bigint with a fraction', '{"~t":"bigint","v":"1.5"}', 'malformed "bigint"'],
    ['a number that needs no tag', '{"~t":"number","v":"7"}', 'malformed "number"'],
    ['a string tag with a stray backslash', '{"~t":"string","v":"a\\\\qb"}', 'malformed "string"'],
    ['a Set whose payload is not an array', '{"~t":"Set","v":{}}', 'malformed "Set"'],
    ['a Map entry that is not a pair', '{"~t":"Map","v":[[1]]}', 'malformed "Map"'],
    ['a RegExp that does not compile', '{"~t":"RegExp","v":"/(/g"}', 'malformed "RegExp"'],
    ['a RegExp without slashes', '{"~t":"RegExp","v":"abc"}', 'malformed "RegExp"'],
    ['base64 with foreign characters', '{"~t":"Uint8Array","v":"AA*="}', 'malformed "Uint8Array"'],
    [
      'bytes that do not fill the last element',
      '{"~t":"Float64Array","v":"AAAA"}',
      'malformed "Float64Array"',
    ],
    ['a hole outside an array', '{"a":{"~t":"hole"}}', 'an array hole outside an array at $.a'],
    ['an escaped object with a bad key', '{"~t":"object","v":[[1,2]]}', 'malformed "object"'],
    [
      'a tag key written with JSON escapes',
      '{"\\u007et":"Date","v":"yesterday"}',
      'malformed "Date"',
    ],
    [
      'nesting deeper than 1000 levels (and the two a state record wraps around its fields)',
      `${'['.repeat(1003)}{"~t":"undefined"}${']'.repeat(1003)}`,
      'nesting deeper',
    ],
    [
      'a corrupt value inside a Map',
      '{"m":{"~t":"Map","v":[["k",{"~t":"?"}]]}}',
      'at $.m<map key "k">',
    ],
  ])('rejects %s', (_name, text, fragment) => {
    expectCorrupt(text, fragment);
  });

  it('rejects input that is not text', () => {
    expect(() => decodeValue(null as unknown as string)).toThrow(StateCorruptError);
  });

  it('rejects a state record that fails validation, naming the field', () => {
    const good = JSON.parse(encodeState(newExecutionState({ executionId: 'e1' }))) as Record<
      string,
      unknown
    >;
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, status: 'paused' }, 'status'],
      [{ ...good, executionId: 'a:b' }, 'executionId'],
      [{ ...good, version: -1 }, 'version'],
      [
        { ...good, waiting: { nodeId: 'n', eventType: 't', filter: {}, dueAt: 'soon' } },
        'waiting.dueAt',
      ],
      [{ ...good, inbox: [{ eventId: 1 }] }, 'inbox[0].eventId'],
    ];
    for (const [record, field] of cases) {
      const error = thrown(() => decodeState(JSON.stringify(record)));
      expect(error).toBeInstanceOf(StateCorruptError);
      expect((error as Error).message).toContain(`invalid execution state: ${field}:`);
    }
    expect(() => decodeState('[]')).toThrow(StateCorruptError);
  });
});

describe('size guard', () => {
  const context = {
    $NODE: {
      small: 'x'.repeat(100),
      big: 'x'.repeat(5000),
      tiny: 1,
      medium: ['y'.repeat(2000)],
      'odd id': 'z'.repeat(3000),
    },
  };

  it('throws StateTooLargeError naming the three largest $NODE entries', () => {
    const state = newExecutionState({ executionId: 'e1', context });
    const error = thrown(() => encodeState(state, { maxStateBytes: 4096 })) as StateTooLargeError;
    expect(error).toBeInstanceOf(StateTooLargeError);
    expect(error.retryable).toBe(false);
    expect(error.code).toBe('state_too_large');
    expect(error.limitBytes).toBe(4096);
    expect(error.bytes).toBe(Buffer.byteLength(encodeState(state), 'utf8'));
    expect(error.largest).toEqual([
      { path: '$NODE.big', bytes: 5002 },
      { path: '$NODE["odd id"]', bytes: 3002 },
      { path: '$NODE.medium', bytes: 2004 },
    ]);
    expect(error.message).toContain('$NODE.big (5002 bytes)');
  });

  it('counts UTF-8 bytes, not string length', () => {
    const state = newExecutionState({
      executionId: 'e1',
      context: { $NODE: { n: '€'.repeat(2000) } },
    });
    const text = encodeState(state);
    expect(text.length).toBeLessThan(4096);
    expect(() => encodeState(state, { maxStateBytes: 4096 })).toThrow(StateTooLargeError);
    expect(encodeState(state, { maxStateBytes: Buffer.byteLength(text) })).toBe(text);
  });

  it('lets a state under the default 16 MiB limit through', () => {
    const state = newExecutionState({ executionId: 'e1', context });
    expect(decodeState(encodeState(state))).toStrictEqual(state);
  });
});
