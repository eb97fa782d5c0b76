import {
  StateCorruptError,
  StateSerializationError,
  StateTooLargeError,
  type LargestEntry,
} from '../errors/state-errors.js';
import { decodeValue, encodeState, encodeValue } from '../state/codec.js';
import {
  type ExecutionState,
  type NodeTiming,
  parseExecutionState,
} from '../state/execution-state.js';
import { INPUT_KEY, parseEntryKey, timingKey, toNodeKey } from './shared/node-key.js';

/**
 * How every store lays a state out: a small *header* rewritten on each save (every field but
 * `timings`, whose running nodes' entries it keeps as `openTimings`, and the context without
 * `$NODE` and with `$INPUT` as a null placeholder that keeps its place), plus per node a result
 * entry (its `$NODE` value) and, once it finished, a timing entry (its `timings` value), and one
 * input entry (`$INPUT`), each written only when it changed. So a checkpoint's
 * cost grows neither with the nodes already run nor with the size of the input. All go through
 * the one codec, so every backend stores the same text.
 *
 * Checkpoints written before these entries existed kept `timings` and `$INPUT` in the header;
 * they load unchanged. A header without `timings` is of this layout: its `$INPUT` placeholder
 * must have an input entry, or the record is corrupt (never a silent null input).
 */

/** One stored entry: its key (stored as is), where it is in the state, and its text. */
export interface EncodedEntry {
  key: string;
  /** `$NODE.<id>` or `state.timings.<id>`: names the entry in errors. */
  path: string;
  text: string;
  bytes: number;
}

export interface EncodedCheckpoint {
  header: string;
  headerBytes: number;
  /** The entries to write: the changed ones, or all of them on a full rewrite. */
  entries: EncodedEntry[];
  /** Keys of stored entries this save removes (changed, but no longer in the state). */
  removedKeys: string[];
  /** True when the stored entries not in `entries` must be removed. */
  fullRewrite: boolean;
}

/** What changed since the last save: `$NODE` ids and `timings` ids (added, changed or removed). */
export interface ChangedEntries {
  nodes: readonly string[];
  /** Absent: every timing entry is written (correct, just more bytes). */
  timings?: readonly string[] | undefined;
  /** True when `$INPUT` is the value last saved: its entry is not written again. */
  inputUnchanged?: boolean | undefined;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Encodes what a save writes. Throws StateSerializationError (with the path into `$NODE`)
 * before anything is written, and StateTooLargeError when a full rewrite, or any single part,
 * is over `maxStateBytes`. Stores that keep entry sizes check the running total themselves
 * with {@link checkTotalSize}.
 */
export function encodeCheckpoint(
  state: ExecutionState,
  changed: ChangedEntries | undefined,
  maxStateBytes: number,
): EncodedCheckpoint {
  const nodeMap = nodesOf(state);
  const hasInput = Object.hasOwn(state.context, '$INPUT');
  const entries: EncodedEntry[] = [];
  const removedKeys: string[] = [];
  // Before the header, which keeps the running ones; their entries go after the results.
  const timingEntries: EncodedEntry[] = [];
  const openTimings = encodeTimings(state.timings, changed?.timings, timingEntries, removedKeys);
  // encodeState validates every field and tags the header with `state.` paths.
  let header: string;
  try {
    header = encodeState(
      { ...state, context: headerContext(state.context, hasInput) },
      { maxStateBytes, omitTimings: true, openTimings },
    );
  } catch (error) {
    throw withLargestResults(error, nodeMap);
  }
  if (changed?.inputUnchanged !== true) {
    if (hasInput) entries.push(encodeInput(state.context.$INPUT));
    else if (changed !== undefined) removedKeys.push(INPUT_KEY);
  }
  for (const id of changed?.nodes ?? Object.keys(nodeMap)) {
    if (Object.hasOwn(nodeMap, id)) entries.push(encodeNode(id, nodeMap[id]));
    else removedKeys.push(toNodeKey(id));
  }
  for (const entry of timingEntries) entries.push(entry);
  const encoded: EncodedCheckpoint = {
    header,
    headerBytes: utf8Bytes(header),
    entries,
    removedKeys,
    fullRewrite: changed === undefined,
  };
  if (encoded.fullRewrite)
    checkTotalSize(
      encoded.headerBytes,
      entries.map((e) => ({ path: e.path, bytes: e.bytes })),
      maxStateBytes,
    );
  for (const entry of entries)
    if (entry.bytes > maxStateBytes)
      throw new StateTooLargeError(entry.bytes, maxStateBytes, [
        { path: entry.path, bytes: entry.bytes },
      ]);
  return encoded;
}

/**
 * The context as the header keeps it: an empty `$NODE` marks that the context had one (results
 * go apart), a null `$INPUT` keeps the input's place among the keys (the input goes apart).
 */
function headerContext(
  context: Record<string, unknown>,
  hasInput: boolean,
): Record<string, unknown> {
  const hasNodes = Object.hasOwn(context, '$NODE');
  if (!hasNodes && !hasInput) return context;
  const copy = { ...context };
  if (hasNodes) copy.$NODE = {};
  if (hasInput) copy.$INPUT = null;
  return copy;
}

/** One entry through the codec; `path` roots the paths a StateSerializationError names. */
function encodeEntry(key: string, path: string, value: unknown): EncodedEntry {
  const text = encodeValue(value, path);
  return { key, path, text, bytes: utf8Bytes(text) };
}

function encodeInput(input: unknown): EncodedEntry {
  return encodeEntry(INPUT_KEY, '$INPUT', input);
}

/**
 * A header over the limit by itself (a large `result`) names no entry: the error then names
 * the largest node results too, so whoever reads it can tell which node made the state large.
 */
function withLargestResults(error: unknown, nodeMap: Record<string, unknown>): unknown {
  if (!(error instanceof StateTooLargeError) || error.largest.length > 0) return error;
  const sizes = Object.keys(nodeMap).map((id) => {
    const entry = encodeNode(id, nodeMap[id]);
    return { path: entry.path, bytes: entry.bytes };
  });
  const largest = sizes.sort((a, b) => b.bytes - a.bytes).slice(0, 3);
  return new StateTooLargeError(error.bytes, error.limitBytes, largest, { cause: error });
}

export function encodeNode(nodeId: string, value: unknown): EncodedEntry {
  return encodeEntry(toNodeKey(nodeId), `$NODE.${nodeId}`, value);
}

/**
 * A finished node's timing is an entry holding its place in `timings` (`at`: the map's key
 * order is the order nodes first started, which the stored entries must give back) and the
 * timing itself. A running node's timing (not ended) stays in the header, as `openTimings`
 * with its place: the next save changes it again, so as an entry it would be written twice.
 * The places of stored entries stay right because a changed timing keeps its key's place and
 * a new one is appended; a removed one would shift the others, so then every timing is
 * rewritten. Returns the header's `openTimings`, or undefined when no node is running.
 */
function encodeTimings(
  timings: Record<string, NodeTiming>,
  changed: readonly string[] | undefined,
  entries: EncodedEntry[],
  removedKeys: string[],
): Record<string, TimingEntry> | undefined {
  const ids = Object.keys(timings);
  let write: readonly string[] = ids;
  if (changed !== undefined) {
    const removed = changed.filter((id) => !Object.hasOwn(timings, id));
    for (const id of removed) removedKeys.push(timingKey(id));
    if (removed.length === 0) write = changed;
  }
  // One pass over every timing: the running ones, and the places a subset written needs.
  const places = write === ids ? undefined : new Map<string, number>();
  let open: Record<string, TimingEntry> | undefined;
  ids.forEach((id, at) => {
    places?.set(id, at);
    const timing = timings[id]!;
    if (timing.endedAt === null) putOwn((open ??= {}), id, { at, timing });
  });
  write.forEach((id, i) => {
    const timing = timings[id]!;
    if (timing.endedAt === null) return;
    const at = places === undefined ? i : places.get(id)!;
    entries.push(encodeEntry(timingKey(id), `state.timings.${id}`, { at, timing }));
  });
  return open;
}

/** A timing as stored: in an entry of its own, or in the header's `openTimings`. */
interface TimingEntry {
  at: number;
  timing: NodeTiming;
}

/** Total = header + every stored entry; over the limit names the three largest entries. */
export function checkTotalSize(
  headerBytes: number,
  entrySizes: readonly LargestEntry[],
  maxStateBytes: number,
): void {
  let total = headerBytes;
  for (const n of entrySizes) total += n.bytes;
  if (total <= maxStateBytes) return;
  const largest = [...entrySizes].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
  throw new StateTooLargeError(total, maxStateBytes, largest);
}

/**
 * Reassembles a state from its header and stored entries (key as stored, text). `$NODE` keys
 * follow `$VISITS` order (the order nodes first recorded a result), then any others in the
 * order given; `timings` keys follow their entries' places.
 */
export function assembleState(
  headerText: string,
  storedEntries: Iterable<readonly [string, string]>,
): ExecutionState {
  const { openTimings, ...header } = decodeValue(headerText) as {
    context?: Record<string, unknown>;
    timings?: unknown;
    openTimings?: unknown;
  };
  const decoded = new Map<string, unknown>();
  const timed: { id: string; at: number; timing: unknown }[] = [];
  let input: { value: unknown } | undefined;
  for (const [key, text] of storedEntries) {
    const entry = parseEntryKey(key);
    if (entry.kind === 'input') input = { value: decodeValue(text) };
    else if (entry.kind === 'result') decoded.set(entry.nodeId, decodeValue(text));
    else timed.push({ id: entry.nodeId, ...timingEntry(entry.nodeId, decodeValue(text)) });
  }
  const $NODE: Record<string, unknown> = {};
  const visits = header.context?.$VISITS;
  if (visits && typeof visits === 'object') {
    for (const id of Object.keys(visits)) if (decoded.has(id)) putOwn($NODE, id, decoded.get(id));
  }
  for (const [id, value] of decoded) if (!Object.hasOwn($NODE, id)) putOwn($NODE, id, value);
  const hadNodes = header.context !== undefined && Object.hasOwn(header.context, '$NODE');
  const context: Record<string, unknown> =
    hadNodes || decoded.size > 0 ? { ...(header.context ?? {}), $NODE } : { ...header.context };
  const ofThisLayout = !Object.hasOwn(header, 'timings');
  if (input !== undefined) putOwn(context, '$INPUT', input.value);
  else if (ofThisLayout && Object.hasOwn(context, '$INPUT'))
    throw new StateCorruptError('the stored input ($INPUT) is missing');
  const state = parseExecutionState({
    ...header,
    context,
    timings: timingsOf(header.timings, withOpen(timed, openTimings)),
  });
  if (ofThisLayout) assembledFromEntries.add(state);
  return state;
}

const assembledFromEntries = new WeakSet<ExecutionState>();

/**
 * Whether `state` is, object for object, what a store loaded from a record of this layout: a
 * save may then name what changed against it (`changedTimings`, `unchangedInput`). A record
 * of the layout before keeps its timings and input in its header, and its first save must
 * write them out whole.
 */
export function isStoredAsEntries(state: ExecutionState): boolean {
  return assembledFromEntries.has(state);
}

/** The header's own `timings` (older checkpoints), then the entries in their places. */
function timingsOf(
  inHeader: unknown,
  timed: { id: string; at: number; timing: unknown }[],
): unknown {
  if (timed.length === 0) return inHeader ?? {};
  const timings: Record<string, unknown> =
    inHeader !== null && typeof inHeader === 'object' ? { ...inHeader } : {};
  timed.sort((a, b) => a.at - b.at);
  for (const { id, timing } of timed) putOwn(timings, id, timing);
  return timings;
}

/** The header's running timings replace any entry a node kept from an earlier visit. */
function withOpen(
  timed: { id: string; at: number; timing: unknown }[],
  openTimings: unknown,
): { id: string; at: number; timing: unknown }[] {
  if (openTimings === undefined) return timed;
  if (typeof openTimings !== 'object' || openTimings === null)
    throw new StateCorruptError('the stored openTimings are not valid');
  const open = Object.entries(openTimings).map(([id, value]) => ({
    id,
    ...timingEntry(id, value),
  }));
  const ids = new Set(open.map((o) => o.id));
  return [...timed.filter((t) => !ids.has(t.id)), ...open];
}

function timingEntry(nodeId: string, value: unknown): { at: number; timing: unknown } {
  const entry = value as { at?: unknown; timing?: unknown } | null;
  if (typeof entry !== 'object' || entry === null || !Number.isSafeInteger(entry.at))
    throw new StateCorruptError(`timing entry of node ${JSON.stringify(nodeId)} is not valid`);
  return { at: entry.at as number, timing: entry.timing };
}

// defineProperty, not assignment: a node id may be `__proto__`.
function putOwn(record: Record<string, unknown>, id: string, value: unknown): void {
  Object.defineProperty(record, id, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function nodesOf(state: ExecutionState): Record<string, unknown> {
  const nodes = state.context.$NODE;
  if (nodes === undefined) return {};
  // Only a plain object's own entries are read: a Map or a Date here (a plugin's ctx.set) would
  // be stored as an empty $NODE, every result silently gone.
  const proto: unknown =
    typeof nodes === 'object' && nodes !== null ? Object.getPrototypeOf(nodes) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    const what = Array.isArray(nodes)
      ? 'an array'
      : typeof nodes === 'object' && nodes !== null
        ? 'an instance of a class'
        : typeof nodes;
    throw new StateSerializationError('$NODE', `${what} where a map of node results belongs`);
  }
  return nodes as Record<string, unknown>;
}
