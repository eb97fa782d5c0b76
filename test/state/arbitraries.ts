/**
 * fast-check arbitraries for values the state codec must round-trip, exported for reuse by the
 * store conformance suite: every store must give back what `codableValue` generates, type for
 * type. Objects with a null prototype are left out on purpose: they decode as plain objects.
 * Compare with `findDifference` (./strict-difference.ts), not `toStrictEqual`: vitest compares
 * `.constructor` by identity, which generated objects with an own `constructor` key defeat, and
 * it ignores Map/Set order.
 */
import fc from 'fast-check';

/** Code units that stress the codec: NUL, lone surrogate halves, a real pair, escapes, tag text. */
const trickyUnit = fc.constantFrom(
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d\ude00',
  '\\',
  'u',
  '0',
  '~',
  't',
  'a',
);

/** Strings PostgreSQL jsonb would reject or that look like the codec's own escapes. */
export const trickyString: fc.Arbitrary<string> = fc.string({ unit: trickyUnit, maxLength: 8 });

export const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 8 }),
  trickyString,
  fc.constantFrom('~t', '"~t"', '\\u007et', '__proto__', 'v', ''),
);

/** Property names, including the tag key, `__proto__` and names jsonb would reject. */
export const propertyName: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 6 }),
  trickyString,
  fc.constantFrom('~t', '~~t', 'v', '__proto__', 'constructor', 'toString', '0', '7', ''),
);

export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    -0,
    0,
    NaN,
    Infinity,
    -Infinity,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.MAX_SAFE_INTEGER + 2,
  ),
);

const regExp: fc.Arbitrary<RegExp> = fc
  .tuple(
    fc.constantFrom(
      'a+b',
      '\\/',
      '/',
      '(?:)',
      '[\\u0000-\\uffff]',
      '^x$',
      '.*',
      '\\d{2,}',
      'a|b',
      '\\\\',
    ),
    fc.subarray(['d', 'g', 'i', 'm', 's', 'u', 'y']),
  )
  .map(([source, flags]) => new RegExp(source, flags.join('')));

const bytes = fc.uint8Array({ maxLength: 12 });

/** Every byte-holding class the codec supports, views at an offset included. */
export const binaryValue: fc.Arbitrary<object> = fc.oneof(
  bytes,
  bytes.map((b) => Buffer.from(b)),
  bytes.map((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
  bytes.map((b) => new DataView(b.buffer)),
  bytes.map((b) => (b.length > 1 ? b.subarray(1) : b)),
  fc.int8Array({ maxLength: 4 }),
  fc.uint8ClampedArray({ maxLength: 4 }),
  fc.int16Array({ maxLength: 4 }),
  fc.uint16Array({ maxLength: 4 }),
  fc.int32Array({ maxLength: 4 }),
  fc.uint32Array({ maxLength: 4 }),
  fc.float32Array({ maxLength: 4 }),
  fc.float64Array({ maxLength: 4 }),
  fc.bigInt64Array({ maxLength: 4 }),
  fc.bigUint64Array({ maxLength: 4 }),
);

/** Leaves: JSON primitives plus everything JSON cannot hold. */
export const codableLeaf: fc.Arbitrary<unknown> = fc.oneof(
  anyString,
  anyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.date(),
  fc.constant(new Date(NaN)),
  regExp,
  binaryValue,
);

interface Codable {
  value: unknown;
  array: unknown[];
  sparse: unknown[];
  object: Record<string, unknown>;
  set: Set<unknown>;
  map: Map<unknown, unknown>;
}

const codable = fc.letrec<Codable>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
    codableLeaf,
    tie('array'),
    tie('sparse'),
    tie('object'),
    tie('set'),
    tie('map'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  sparse: fc.sparseArray(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(propertyName, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  set: fc.array(tie('value'), { maxLength: 3 }).map((items) => new Set(items)),
  map: fc
    .array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 })
    .map((entries) => new Map(entries)),
}));

/** Any value the codec must round-trip losslessly. */
export const codableValue: fc.Arbitrary<unknown> = codable.value;

/** A checkpoint-shaped context (docs/flow-format.md §6.6) whose node results are arbitrary codable values. */
export const codableContext: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    input: codableValue,
    nodes: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), codableValue, {
      maxKeys: 4,
      noNullPrototype: true,
    }),
    extra: fc.dictionary(propertyName, codableValue, { maxKeys: 2, noNullPrototype: true }),
  })
  .map(({ input, nodes, extra }) => ({
    ...extra,
    $EXECUTION_ID: 'exec-1',
    $ENV: {},
    $INPUT: input,
    $PARENT: {},
    $GLOBAL: { flow_id: 'flow-1' },
    EXPRESS_PREFIX: '$',
    $FLOW_ID: 'flow-1',
    $NODE: nodes,
    $LAST_NODE: Object.keys(nodes).at(-1) ?? null,
    $BRANCH: null,
    $VISITS: Object.fromEntries(Object.keys(nodes).map((id) => [id, 1])),
  }));
