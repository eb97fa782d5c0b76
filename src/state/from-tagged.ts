/**
 * The decoding half of the codec: turns a parsed JSON tree back into the values it encodes
 * (see `codec.ts` for the format). Anything that is not a valid encoding throws
 * `StateCorruptError` naming where it sits.
 */
import { StateCorruptError } from '../errors/state-errors.js';
import { BINARY_TYPES } from './binary-types.js';
import { parseIsoTimestamp } from './iso-timestamp.js';
import { unescapeUnsafeString } from './jsonb-safe-string.js';
import { MAX_DEPTH, PAYLOAD, setOwn, SPECIAL_NUMBERS, TAG } from './tagged-format.js';
import { renderPath, SpecialSegment } from './value-path.js';
import type { PathSegment } from './value-path.js';

type ObjectRecord = Record<string, unknown>;

/**
 * The encoder counts depth from each field it tags; a whole record is revived at once, its
 * fields one level down and the context's roots two: what saved must load, so the decoder
 * allows those two wrapping levels on top (it only guards the recursion against hostile text).
 */
const MAX_REVIVE_DEPTH = MAX_DEPTH + 2;

class ReviveWalk {
  private readonly segments: PathSegment[] = [];

  enter(key: PathSegment): void {
    if (this.segments.length >= MAX_REVIVE_DEPTH)
      throw this.corrupt(key, `nesting deeper than ${MAX_DEPTH} levels`);
    this.segments.push(key);
  }

  leave(): void {
    this.segments.pop();
  }

  corrupt(key: PathSegment, problem: string): StateCorruptError {
    return new StateCorruptError(
      `not a valid state encoding: ${problem} at ${renderPath('$', [...this.segments, key])}`,
    );
  }
}

/**
 * Revives a parsed JSON tree (as `JSON.parse` or a driver's jsonb parser returns it).
 * Works in place: containers of `json` are reused for the result, so pass a tree you own.
 */
export function fromTagged(json: unknown): unknown {
  return reviveValue(json, null, new ReviveWalk());
}

function reviveValue(value: unknown, key: PathSegment, walk: ReviveWalk): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return reviveArray(value, key, walk);
  const node = value as ObjectRecord;
  return Object.hasOwn(node, TAG) ? reviveTagged(node, key, walk) : reviveObject(node, key, walk);
}

function reviveObject(obj: ObjectRecord, key: PathSegment, walk: ReviveWalk): ObjectRecord {
  walk.enter(key);
  for (const name of Object.keys(obj)) {
    const child = obj[name];
    if (typeof child !== 'object' || child === null) continue;
    const out = reviveValue(child, name, walk);
    // Plain assignment is safe even for `__proto__`: JSON.parse made it an own data property.
    if (out !== child) obj[name] = out;
  }
  walk.leave();
  return obj;
}

function reviveArray(array: unknown[], key: PathSegment, walk: ReviveWalk): unknown[] {
  walk.enter(key);
  for (let i = 0; i < array.length; i++) {
    const child = array[i];
    if (typeof child !== 'object' || child === null) continue;
    if (isHole(child)) Reflect.deleteProperty(array, i);
    else {
      const out = reviveValue(child, i, walk);
      if (out !== child) array[i] = out;
    }
  }
  walk.leave();
  return array;
}

function isHole(node: object): boolean {
  return (node as ObjectRecord)[TAG] === 'hole' && Object.keys(node).length === 1;
}

const MALFORMED = Symbol('malformed');

interface TagDecoder {
  /** Whether the node carries a `v` payload (`undefined` and `hole` do not). */
  readonly payload: boolean;
  decode(payload: unknown, key: PathSegment, walk: ReviveWalk): unknown;
}

function reviveTagged(node: ObjectRecord, key: PathSegment, walk: ReviveWalk): unknown {
  const tag = node[TAG];
  if (typeof tag !== 'string') throw walk.corrupt(key, `a "${TAG}" key that is not a tag name`);
  const decoder = DECODERS.get(tag);
  if (decoder === undefined) throw walk.corrupt(key, `unknown tag "${tag}"`);
  const keyCount = Object.keys(node).length;
  const shaped = decoder.payload ? keyCount === 2 && Object.hasOwn(node, PAYLOAD) : keyCount === 1;
  const value = shaped ? decoder.decode(node[PAYLOAD], key, walk) : MALFORMED;
  if (value === MALFORMED) throw walk.corrupt(key, `malformed "${tag}" node`);
  return value;
}

function decoder(
  decode: (payload: unknown, key: PathSegment, walk: ReviveWalk) => unknown,
): TagDecoder {
  return { payload: true, decode };
}

function stringDecoder(decode: (payload: string) => unknown): TagDecoder {
  return decoder((payload) => (typeof payload === 'string' ? decode(payload) : MALFORMED));
}

const DECODERS: ReadonlyMap<string, TagDecoder> = new Map<string, TagDecoder>([
  ['undefined', { payload: false, decode: () => undefined }],
  [
    'hole',
    {
      payload: false,
      decode: (_p, key, walk) => {
        throw walk.corrupt(key, 'an array hole outside an array');
      },
    },
  ],
  ['number', stringDecoder((name) => SPECIAL_NUMBERS.get(name) ?? MALFORMED)],
  [
    'bigint',
    stringDecoder((digits) => (/^(?:0|-?[1-9]\d*)$/.test(digits) ? BigInt(digits) : MALFORMED)),
  ],
  ['string', stringDecoder((escaped) => unescapeUnsafeString(escaped) ?? MALFORMED)],
  ['object', decoder(decodeEscapedObject)],
  ['Date', decoder(decodeDate)],
  ['RegExp', stringDecoder(decodeRegExp)],
  ['Set', decoder(decodeSet)],
  ['Map', decoder(decodeMap)],
  ...BINARY_TYPES.map((type): [string, TagDecoder] => [
    type.tag,
    stringDecoder((b64) => type.decode(b64) ?? MALFORMED),
  ]),
]);

function decodeDate(payload: unknown): unknown {
  if (payload === null) return new Date(NaN);
  // Only the exact text toISOString wrote is accepted: a hand-edited date is not guessed at.
  return (typeof payload === 'string' && parseIsoTimestamp(payload)) || MALFORMED;
}

function decodeRegExp(text: string): unknown {
  const slash = text.lastIndexOf('/');
  if (!text.startsWith('/') || slash < 1) return MALFORMED;
  try {
    return new RegExp(text.slice(1, slash), text.slice(slash + 1));
  } catch {
    return MALFORMED;
  }
}

function decodeSet(payload: unknown, key: PathSegment, walk: ReviveWalk): unknown {
  if (!Array.isArray(payload)) return MALFORMED;
  walk.enter(key);
  const set = new Set<unknown>();
  payload.forEach((item, i) => set.add(reviveValue(item, new SpecialSegment('set-item', i), walk)));
  walk.leave();
  return set;
}

function decodeMap(payload: unknown, key: PathSegment, walk: ReviveWalk): unknown {
  if (!Array.isArray(payload) || !payload.every(isPair)) return MALFORMED;
  walk.enter(key);
  const map = new Map<unknown, unknown>();
  payload.forEach(([entryKey, entryValue]: readonly unknown[], i) => {
    const k = reviveValue(entryKey, new SpecialSegment('map-key', i), walk);
    map.set(k, reviveValue(entryValue, new SpecialSegment('map-value', i, k), walk));
  });
  walk.leave();
  return map;
}

function decodeEscapedObject(payload: unknown, key: PathSegment, walk: ReviveWalk): unknown {
  if (!Array.isArray(payload) || !payload.every(isPair)) return MALFORMED;
  const names = payload.map(([name]: readonly unknown[]) => decodePropertyName(name));
  if (names.includes(undefined)) return MALFORMED;
  walk.enter(key);
  const obj: ObjectRecord = {};
  payload.forEach(([, value]: readonly unknown[], i) => {
    const name = names[i]!;
    setOwn(obj, name, reviveValue(value, name, walk));
  });
  walk.leave();
  return obj;
}

function decodePropertyName(name: unknown): string | undefined {
  if (typeof name === 'string') return name;
  if (typeof name !== 'object' || name === null) return undefined;
  const node = name as ObjectRecord;
  const isStringTag =
    node[TAG] === 'string' && typeof node[PAYLOAD] === 'string' && Object.keys(node).length === 2;
  return isStringTag ? unescapeUnsafeString(node[PAYLOAD] as string) : undefined;
}

function isPair(entry: unknown): entry is readonly [unknown, unknown] {
  return Array.isArray(entry) && entry.length === 2;
}
