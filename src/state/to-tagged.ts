/**
 * The encoding half of the codec: one walk that validates a value and turns it into a
 * JSON-safe tree (see `codec.ts` for the format).
 *
 * Copy-on-write: a subtree that needs no tag is returned as the very same object, so a
 * JSON-only value comes back unchanged and native `JSON.stringify` does the writing. Only the
 * containers on the way to a tagged node are copied.
 */
import { types } from 'node:util';
import { StateSerializationError } from '../errors/state-errors.js';
import { BINARY_TYPES } from './binary-types.js';
import { formatIsoTimestamp } from './iso-timestamp.js';
import { escapeUnsafeString, isJsonbSafe } from './jsonb-safe-string.js';
import { bareTag, MAX_DEPTH, setOwn, specialNumberName, TAG, tagged } from './tagged-format.js';
import type { TaggedNode } from './tagged-format.js';
import { renderPath, SpecialSegment } from './value-path.js';
import type { PathSegment } from './value-path.js';

type ObjectRecord = Record<string, unknown>;

/** Tracks the containers being walked: for cycle detection and for the path in errors. */
class TagWalk {
  private readonly ancestors: object[] = [];
  private readonly segments: PathSegment[] = [];

  /** False for the fast pass whose serialized text is checked instead (see toTaggedUnchecked). */
  constructor(
    private readonly root: string,
    readonly checkStrings = true,
  ) {}

  enter(container: object, key: PathSegment): void {
    // An ancestor stack, not a "seen" set: a value shared by two branches is fine.
    if (this.ancestors.includes(container)) throw this.fail(key, 'cycle');
    if (this.ancestors.length >= MAX_DEPTH)
      throw this.fail(key, `nesting deeper than ${MAX_DEPTH} levels`);
    this.ancestors.push(container);
    this.segments.push(key);
  }

  leave(): void {
    this.ancestors.pop();
    this.segments.pop();
  }

  fail(key: PathSegment, valueType: string): StateSerializationError {
    return new StateSerializationError(renderPath(this.root, [...this.segments, key]), valueType);
  }
}

/**
 * Returns a JSON-safe tree for `value`, or throws `StateSerializationError` naming the path
 * (rooted at `path`) of the first value that cannot be stored. The result may share unchanged
 * subtrees with `value`: serialize it before mutating `value`.
 */
export function toTagged(value: unknown, path = '$'): unknown {
  return isPlainScalar(value, true) ? value : tagValue(value, null, new TagWalk(path));
}

/**
 * `toTagged` minus the jsonb check of every string and key (about a third of the walk's cost).
 * Only for callers that serialize the result and then run `mayHoldUnsafeStrings` on the text
 * (JSON.stringify spells both U+0000 and lone surrogates as `\u` escapes), falling back to
 * `toTagged` when it says yes.
 */
export function toTaggedUnchecked(value: unknown, path = '$'): unknown {
  return isPlainScalar(value, false) ? value : tagValue(value, null, new TagWalk(path, false));
}

/**
 * A value written as itself with no walk to set up: most fields of a state are null, a string
 * or a count, and a save tags each field separately.
 */
function isPlainScalar(value: unknown, checkStrings: boolean): boolean {
  switch (typeof value) {
    case 'string':
      return !checkStrings || isJsonbSafe(value);
    case 'number':
      return specialNumberName(value) === undefined;
    case 'boolean':
      return true;
    default:
      return value === null;
  }
}

function tagValue(value: unknown, key: PathSegment, walk: TagWalk): unknown {
  switch (typeof value) {
    case 'string':
      return !walk.checkStrings || isJsonbSafe(value)
        ? value
        : tagged('string', escapeUnsafeString(value));
    case 'number':
      return tagNumber(value);
    case 'boolean':
      return value;
    case 'object':
      return value === null ? null : tagObject(value, key, walk);
    case 'undefined':
      return bareTag('undefined');
    case 'bigint':
      return tagged('bigint', value.toString());
    case 'function':
      throw walk.fail(key, `function ${value.name || '(anonymous)'}`);
    case 'symbol':
      throw walk.fail(key, `symbol ${String(value)}`);
  }
}

function tagNumber(value: number): unknown {
  const special = specialNumberName(value);
  return special === undefined ? value : tagged('number', special);
}

type ClassEncoder = (value: object, key: PathSegment, walk: TagWalk) => TaggedNode;

/** Supported classes, found by exact prototype (a subclass could carry state we would drop). */
const CLASS_ENCODERS: ReadonlyMap<object, ClassEncoder> = new Map<object, ClassEncoder>([
  [Date.prototype, (date) => tagged('Date', formatIsoTimestamp(date as Date))],
  [RegExp.prototype, (re) => tagged('RegExp', `/${(re as RegExp).source}/${(re as RegExp).flags}`)],
  [Set.prototype, (set, key, walk) => tagSet(set as Set<unknown>, key, walk)],
  [Map.prototype, (map, key, walk) => tagMap(map as Map<unknown, unknown>, key, walk)],
  ...BINARY_TYPES.map((type): [object, ClassEncoder] => [
    type.prototype,
    (v) => tagged(type.tag, type.encode(v)),
  ]),
]);

function tagObject(value: object, key: PathSegment, walk: TagWalk): unknown {
  let proto: unknown;
  try {
    proto = Object.getPrototypeOf(value);
  } catch {
    throw walk.fail(key, 'revoked proxy');
  }
  if (proto === Object.prototype || proto === null)
    return tagPlainObject(value as ObjectRecord, key, walk);
  if (proto === Array.prototype) return tagArray(value as unknown[], key, walk);
  // A proxy can claim a class's prototype and answer like the real thing until a method
  // checks: refused, typed, never a TypeError from inside an encoder. (A proxy of a plain
  // object or an array is read through its traps like any data.)
  if (types.isProxy(value)) throw walk.fail(key, 'proxy');
  const encode = CLASS_ENCODERS.get(proto as object);
  if (encode === undefined) throw walk.fail(key, describeInstance(value, proto as object));
  // The containers are walked (the walk enters them): their brand is checked first.
  if (
    (proto === Map.prototype && !types.isMap(value)) ||
    (proto === Set.prototype && !types.isSet(value))
  )
    throw walk.fail(key, `${describeInstance(value, proto)} that is not one`);
  try {
    return encode(value, key, walk);
  } catch (error) {
    if (error instanceof StateSerializationError) throw error;
    // `Object.create(Date.prototype)`, a detached ArrayBuffer: the prototype is right, the
    // value is not what it claims.
    throw walk.fail(
      key,
      `${describeInstance(value, proto as object)} that cannot be read (${(error as Error).message})`,
    );
  }
}

function tagPlainObject(obj: ObjectRecord, key: PathSegment, walk: TagWalk): unknown {
  walk.enter(obj, key);
  const keys = Object.keys(obj);
  // JSON.stringify would call a `toJSON` and write what it returns instead of the data; the
  // codec reads own enumerable data only, so a (non-enumerable) one is left behind in a copy.
  let copy: ObjectRecord | undefined = hasOwnToJson(obj) ? {} : undefined;
  let escape = false;
  for (let i = 0; i < keys.length; i++) {
    const name = keys[i]!;
    if (name === TAG || (walk.checkStrings && !isJsonbSafe(name))) escape = true;
    const child = obj[name];
    const out = tagValue(child, name, walk);
    if (copy === undefined && out !== child) copy = copyProperties(obj, keys, i);
    if (copy !== undefined) setOwn(copy, name, out);
  }
  rejectSymbolKeys(obj, walk);
  walk.leave();
  const result = copy ?? obj;
  return escape ? tagEscapedObject(keys, result) : result;
}

/** A plain object whose keys would read as a tag or break jsonb is stored as an entry list. */
function tagEscapedObject(keys: readonly string[], source: ObjectRecord): TaggedNode {
  const entries = keys.map((name) => [
    isJsonbSafe(name) ? name : tagged('string', escapeUnsafeString(name)),
    source[name],
  ]);
  return tagged('object', entries);
}

function hasOwnToJson(container: object): boolean {
  // The property read first: V8 answers a missing one from the object's shape, far cheaper
  // than a call to Object.hasOwn on every container of every save.
  return (
    (container as { toJSON?: unknown }).toJSON !== undefined && Object.hasOwn(container, 'toJSON')
  );
}

function copyProperties(obj: ObjectRecord, keys: readonly string[], count: number): ObjectRecord {
  const copy: ObjectRecord = {};
  for (let i = 0; i < count; i++) setOwn(copy, keys[i]!, obj[keys[i]!]);
  return copy;
}

function rejectSymbolKeys(obj: object, walk: TagWalk): void {
  // Non-enumerable symbols are invisible like non-enumerable names; enumerable ones are data.
  for (const symbol of Object.getOwnPropertySymbols(obj)) {
    if (Object.prototype.propertyIsEnumerable.call(obj, symbol)) {
      throw walk.fail(new SpecialSegment('symbol-key', 0, symbol), 'symbol-keyed property');
    }
  }
}

/**
 * Longer arrays are refused before the walk: one of length 1e9 with a single item would build a
 * hole marker per index and exhaust the heap (a crash, not an error). Far over any state limit.
 */
const MAX_ARRAY_LENGTH = 1 << 24;

function tagArray(array: readonly unknown[], key: PathSegment, walk: TagWalk): unknown {
  if (array.length > MAX_ARRAY_LENGTH)
    throw walk.fail(key, `array of ${array.length} items (at most ${MAX_ARRAY_LENGTH})`);
  walk.enter(array, key);
  // As for objects: an array's named `toJSON` would replace the array in the text.
  let copy: unknown[] | undefined = hasOwnToJson(array) ? [] : undefined;
  for (let i = 0; i < array.length; i++) {
    const child = array[i];
    // `in` only for undefined slots: telling a hole from `undefined` costs nothing otherwise.
    const out = child === undefined && !(i in array) ? bareTag('hole') : tagValue(child, i, walk);
    if (copy === undefined && out !== child) copy = array.slice(0, i);
    if (copy !== undefined) copy.push(out);
  }
  walk.leave();
  return copy ?? array;
}

function tagSet(set: Set<unknown>, key: PathSegment, walk: TagWalk): TaggedNode {
  walk.enter(set, key);
  const items: unknown[] = [];
  for (const item of set)
    items.push(tagValue(item, new SpecialSegment('set-item', items.length), walk));
  walk.leave();
  return tagged('Set', items);
}

function tagMap(map: Map<unknown, unknown>, key: PathSegment, walk: TagWalk): TaggedNode {
  walk.enter(map, key);
  const entries: unknown[] = [];
  for (const [entryKey, entryValue] of map) {
    const index = entries.length;
    entries.push([
      tagValue(entryKey, new SpecialSegment('map-key', index), walk),
      tagValue(entryValue, new SpecialSegment('map-value', index, entryKey), walk),
    ]);
  }
  walk.leave();
  return tagged('Map', entries);
}

function describeInstance(value: object, proto: object): string {
  if (value instanceof Promise) return 'promise';
  if (value instanceof WeakMap) return 'WeakMap';
  if (value instanceof WeakSet) return 'WeakSet';
  if (value instanceof WeakRef) return 'WeakRef';
  const ctor: unknown = Object.prototype.hasOwnProperty.call(proto, 'constructor')
    ? (proto as { constructor: unknown }).constructor
    : undefined;
  if (typeof ctor === 'function' && ctor.name !== '') return `instance of ${ctor.name}`;
  return 'object with a custom prototype';
}
