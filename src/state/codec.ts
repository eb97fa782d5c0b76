/**
 * The state codec: the ONE way every store turns values into text and back (docs/durable-contract.md §2).
 *
 * Format: readable JSON. JSON values are written as themselves; anything JSON cannot hold
 * losslessly becomes a tagged node `{"~t": "<tag>", "v": <payload>}`:
 *
 * | value                                   | tagged node                                   |
 * |-----------------------------------------|-----------------------------------------------|
 * | `undefined` (in objects, arrays, top)   | `{"~t":"undefined"}`                          |
 * | array hole (sparse array)               | `{"~t":"hole"}` (only as an array element)    |
 * | `NaN`, `Infinity`, `-Infinity`, `-0`    | `{"~t":"number","v":"NaN"}` (name as string)  |
 * | `BigInt`                                | `{"~t":"bigint","v":"-123"}` (decimal)        |
 * | string with U+0000 or a lone surrogate  | `{"~t":"string","v":"a\\u0000b"}` (see below) |
 * | `Date`                                  | `{"~t":"Date","v":"2024-05-01T10:00:00.000Z"}`, invalid date: `"v":null` |
 * | `RegExp`                                | `{"~t":"RegExp","v":"/a+b/gi"}` (`lastIndex` is not kept) |
 * | `Set`                                   | `{"~t":"Set","v":[item, ...]}` (insertion order) |
 * | `Map`                                   | `{"~t":"Map","v":[[key, value], ...]}` (insertion order, any codable key) |
 * | `Buffer`, `Uint8Array`, other typed arrays, `DataView`, `ArrayBuffer` | `{"~t":"<class name>","v":"<base64 of the bytes>"}` |
 * | plain object with a key `~t`, or a key holding U+0000 or a lone surrogate | `{"~t":"object","v":[[key, value], ...]}`; a bad key is itself a `string` tag |
 *
 * Lowercase tags are primitives or structure, capitalised tags name the class rebuilt. Payloads
 * are themselves encoded (a Set of Dates holds Date tags). A tagged node has exactly the keys
 * `~t` and `v` (`v` absent for `undefined` and `hole`); anything else is corrupt.
 *
 * `string` tag text: `\` is written `\\`, and U+0000 and every lone surrogate `\u` + 4 lowercase
 * hex digits, so the document never holds a code point PostgreSQL `jsonb` rejects.
 *
 * Decoded as copies, with no sharing: shared references (a value reachable twice decodes
 * twice), views over one buffer. Decoded as plain objects: objects with a null prototype.
 * Getters are read once and stored as values (getters must not change their value between the
 * validation walk and `JSON.stringify`). Non-enumerable properties and extra properties on
 * arrays and built-ins are not stored (as with `JSON.stringify`).
 *
 * Rejected with `StateSerializationError` (path + value type): functions, symbols, enumerable
 * symbol-keyed properties, class instances other than the above (errors and boxed primitives
 * included, subclasses of supported classes too), `WeakMap`/`WeakSet`/`WeakRef`, promises,
 * cycles, nesting deeper than 1000 levels. Errors thrown by getters or proxies propagate as is.
 *
 * Paths: `$` (or the caller's root) then `.name` for property names made of flow name
 * characters, `["other name"]`, `[3]` for indices, `<map key "k">` for the value of a Map entry
 * (`<map entry #2>` when its key is not a primitive, `<map entry #2 key>` for the key itself),
 * `<set item #0>`, `[Symbol(x)]`. In `encodeState` context paths start at the context key
 * (`$NODE.fetch.result.client`) and other fields at `state` (`state.inbox[0].data`).
 *
 * The same description, with the reasons, is in `docs/state-codec.md`.
 */
import {
  StateCorruptError,
  StateSerializationError,
  StateTooLargeError,
} from '../errors/state-errors.js';
import type { LargestEntry } from '../errors/state-errors.js';
import { EXECUTION_STATE_FIELDS, findStateIssue, parseExecutionState } from './execution-state.js';
import type { ExecutionState } from './execution-state.js';
import { fromTagged } from './from-tagged.js';
import { setOwn, TAG } from './tagged-format.js';
import { mayHoldUnsafeStrings } from './jsonb-safe-string.js';
import { toTagged, toTaggedUnchecked } from './to-tagged.js';
import { renderPath } from './value-path.js';

export { fromTagged } from './from-tagged.js';
export { toTagged } from './to-tagged.js';

/** 16 MiB. */
export const DEFAULT_MAX_STATE_BYTES = 16 * 1024 * 1024;

export interface EncodeStateOptions {
  /** Limit on the UTF-8 length of the encoded state (default 16 MiB). */
  maxStateBytes?: number | undefined;
  /**
   * Leaves `timings` out of the text (still validated): the stores' header, whose per-node
   * timing entries are written apart (store/checkpoint-parts.ts).
   */
  omitTimings?: boolean;
  /**
   * With `omitTimings`: what the header keeps of them anyway, as its last field `openTimings`
   * (the timings of nodes still running, which the next save changes again).
   */
  openTimings?: Record<string, unknown> | undefined;
}

/** Encodes one value; `path` roots the paths named by a `StateSerializationError`. */
export function encodeValue(value: unknown, path = '$'): string {
  return stringifyTagged((tag) => tag(value, path));
}

/**
 * Encodes a record whose fields are each tagged as a root, as `encodeState` does the state's:
 * a field the header accepts at the depth limit is accepted here too (`encodeValue` of the
 * record would count the record as one more level). `path` roots the paths in errors.
 */
export function encodeRecord(record: object, path: string): string {
  return stringifyTagged((tag) => {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(record))
      setOwn(out, name, tag(value, `${path}.${name}`));
    return out;
  });
}

type Tagger = (value: unknown, path: string) => unknown;

/**
 * Tags without the per-string jsonb check, then looks for unsafe strings in the text once;
 * only when some may be there, tags again with the check. Same output, a fraction of the cost.
 */
function stringifyTagged(build: (tag: Tagger) => unknown): string {
  const text = stringify(build(toTaggedUnchecked));
  return mayHoldUnsafeStrings(text) ? stringify(build(toTagged)) : text;
}

/** Past V8's longest string (≈ 512 Mi characters) the text cannot exist: too large, typed. */
function stringify(tree: unknown): string {
  try {
    return JSON.stringify(tree);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const limit = (1 << 29) - 24;
    throw new StateTooLargeError(limit, limit, [], { cause: error });
  }
}

/** Decodes what `encodeValue` wrote; anything else throws `StateCorruptError`. */
export function decodeValue(text: string): unknown {
  const parsed = parseJson(text);
  return mayHoldTags(text) ? fromTagged(parsed) : parsed;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string')
    throw new StateCorruptError(`not a valid state encoding: got ${typeof text}, not text`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StateCorruptError(
      `not a valid state encoding: not JSON (${(error as Error).message})`,
      { cause: error },
    );
  }
}

/**
 * Whether the text may contain a tag key, so reviving can be skipped for plain JSON. The key
 * reads `"~t"`; `\u007` catches the key written with JSON escapes (`"\u007et"`), which our
 * encoder never does but hand-edited text might. False positives only cost the revive walk.
 */
function mayHoldTags(text: string): boolean {
  return text.includes(`${TAG}"`) || text.includes('\\u007');
}

/**
 * Encodes a whole execution state. Throws `StateSerializationError` for a value that cannot
 * be stored or a field that breaks the state schema, and `StateTooLargeError` past
 * `maxStateBytes`; nothing is returned in either case.
 */
export function encodeState(state: ExecutionState, options: EncodeStateOptions = {}): string {
  const issue = findStateIssue(state);
  if (issue !== undefined)
    throw new StateSerializationError(`state.${issue.path}`, `invalid field (${issue.message})`);
  const omitTimings = options.omitTimings === true;
  const { openTimings } = options;
  const text = stringifyTagged((tag) => {
    const record: Record<string, unknown> = tagState(state, tag, omitTimings);
    if (omitTimings && openTimings !== undefined)
      record.openTimings = tag(openTimings, 'state.timings');
    return record;
  });
  checkSize(text, state.context, options.maxStateBytes ?? DEFAULT_MAX_STATE_BYTES);
  return text;
}

/**
 * The header record, fields in EXECUTION_STATE_FIELDS order (checked below): an object literal
 * rather than a loop of keyed stores, which V8 runs several times slower. The fields are
 * tagged in that order too, so the first bad one is the one reported.
 */
function tagState(
  state: ExecutionState,
  tag: Tagger,
  omitTimings = false,
): Record<keyof ExecutionState, unknown> {
  return {
    executionId: tag(state.executionId, 'state.executionId'),
    tenantId: tag(state.tenantId, 'state.tenantId'),
    flowId: tag(state.flowId, 'state.flowId'),
    flowVersion: tag(state.flowVersion, 'state.flowVersion'),
    flowHash: tag(state.flowHash, 'state.flowHash'),
    status: tag(state.status, 'state.status'),
    version: tag(state.version, 'state.version'),
    createdAt: tag(state.createdAt, 'state.createdAt'),
    updatedAt: tag(state.updatedAt, 'state.updatedAt'),
    endedAt: tag(state.endedAt, 'state.endedAt'),
    parentExecutionId: tag(state.parentExecutionId, 'state.parentExecutionId'),
    dedupKey: tag(state.dedupKey, 'state.dedupKey'),
    waiting: tag(state.waiting, 'state.waiting'),
    result: tag(state.result, 'state.result'),
    error: tag(state.error, 'state.error'),
    attempts: tag(state.attempts, 'state.attempts'),
    // JSON.stringify leaves out a field whose value is undefined.
    timings: omitTimings ? undefined : tag(state.timings, 'state.timings'),
    manualRetries: tag(state.manualRetries, 'state.manualRetries'),
    appliedEventIds: tag(state.appliedEventIds, 'state.appliedEventIds'),
    inbox: tag(state.inbox, 'state.inbox'),
    context: tag(state.context, ''),
  };
}

// The literal above must list the fields in the stored order: checked once, at load.
const tagged = Object.keys(tagState({} as ExecutionState, () => null));
if (tagged.join() !== EXECUTION_STATE_FIELDS.join())
  throw new Error(`codec: tagState writes ${tagged.join()}, not ${EXECUTION_STATE_FIELDS.join()}`);

/** Decodes what `encodeState` wrote; `StateCorruptError` for anything else. */
export function decodeState(text: string): ExecutionState {
  return parseExecutionState(decodeValue(text));
}

function checkSize(text: string, context: Record<string, unknown>, limitBytes: number): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most states are cleared without counting.
  if (text.length * 3 <= limitBytes) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limitBytes)
    throw new StateTooLargeError(bytes, limitBytes, largestNodeEntries(context, 3));
}

/** Only on the failure path: encodes each `$NODE` entry alone to weigh it. */
function largestNodeEntries(context: Record<string, unknown>, count: number): LargestEntry[] {
  const nodes = context['$NODE'];
  if (typeof nodes !== 'object' || nodes === null || Array.isArray(nodes)) return [];
  return Object.entries(nodes)
    .map(([id, result]) => ({
      path: renderPath('', ['$NODE', id]),
      bytes: Buffer.byteLength(encodeValue(result), 'utf8'),
    }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}
