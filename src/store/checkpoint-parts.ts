import { StateSerializationError, StateTooLargeError, type LargestEntry } from '../errors.js';
import { decodeValue, encodeState, encodeValue } from '../state/codec.js';
import { type ExecutionState, parseExecutionState } from '../state/execution-state.js';

/**
 * How every store lays a state out: a small *header* (every field, and the context without
 * `$NODE`) rewritten on each save, plus one entry per `$NODE` result, written only when it
 * changed. Both go through the one codec, so every backend stores the same text.
 */

export interface EncodedNode {
  nodeId: string;
  text: string;
  bytes: number;
}

export interface EncodedCheckpoint {
  header: string;
  headerBytes: number;
  /** The node results to write: the changed ones, or all of them on a full rewrite. */
  nodes: EncodedNode[];
  /** True when the stored node results not in `nodes` must be removed. */
  fullRewrite: boolean;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Encodes what a save writes. Throws StateSerializationError (with the path into `$NODE`)
 * before anything is written, and StateTooLargeError when a full rewrite, or any single part,
 * is over `maxStateBytes`. Stores that keep node sizes check the running total themselves
 * with {@link checkTotalSize}.
 */
export function encodeCheckpoint(
  state: ExecutionState,
  changedNodes: readonly string[] | undefined,
  maxStateBytes: number,
): EncodedCheckpoint {
  const nodeMap = nodesOf(state);
  // The header keeps an empty `$NODE` as a marker that the context had one; results go apart.
  const context = Object.hasOwn(state.context, '$NODE')
    ? { ...state.context, $NODE: {} }
    : state.context;
  // encodeState validates the fields and tags the header with `state.` paths.
  const header = encodeState({ ...state, context }, { maxStateBytes });
  const nodes: EncodedNode[] = [];
  for (const id of changedNodes ?? Object.keys(nodeMap))
    if (Object.hasOwn(nodeMap, id)) nodes.push(encodeNode(id, nodeMap[id]));
  const encoded: EncodedCheckpoint = {
    header,
    headerBytes: utf8Bytes(header),
    nodes,
    fullRewrite: changedNodes === undefined,
  };
  if (encoded.fullRewrite)
    checkTotalSize(
      encoded.headerBytes,
      nodes.map((n) => ({ path: `$NODE.${n.nodeId}`, bytes: n.bytes })),
      maxStateBytes,
    );
  for (const node of nodes)
    if (node.bytes > maxStateBytes)
      throw new StateTooLargeError(node.bytes, maxStateBytes, [
        { path: `$NODE.${node.nodeId}`, bytes: node.bytes },
      ]);
  return encoded;
}

export function encodeNode(nodeId: string, value: unknown): EncodedNode {
  const text = encodeValue(value, `$NODE.${nodeId}`);
  return { nodeId, text, bytes: utf8Bytes(text) };
}

/** Total = header + every stored node result; over the limit names the three largest entries. */
export function checkTotalSize(
  headerBytes: number,
  nodeSizes: readonly LargestEntry[],
  maxStateBytes: number,
): void {
  let total = headerBytes;
  for (const n of nodeSizes) total += n.bytes;
  if (total <= maxStateBytes) return;
  const largest = [...nodeSizes].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
  throw new StateTooLargeError(total, maxStateBytes, largest);
}

/**
 * Reassembles a state from its header and node entries. `$NODE` keys follow `$VISITS` order
 * (the order nodes first recorded a result), then any others in the order given.
 */
export function assembleState(
  headerText: string,
  nodeEntries: Iterable<readonly [string, string]>,
): ExecutionState {
  const header = decodeValue(headerText) as { context?: Record<string, unknown> };
  const decoded = new Map<string, unknown>();
  for (const [nodeId, text] of nodeEntries) decoded.set(nodeId, decodeValue(text));
  const $NODE: Record<string, unknown> = {};
  // defineProperty, not assignment: a node id may be `__proto__`.
  const put = (id: string, value: unknown): void =>
    void Object.defineProperty($NODE, id, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  const visits = header.context?.$VISITS;
  if (visits && typeof visits === 'object') {
    for (const id of Object.keys(visits)) if (decoded.has(id)) put(id, decoded.get(id));
  }
  for (const [id, value] of decoded) if (!Object.hasOwn($NODE, id)) put(id, value);
  const hadNodes = header.context !== undefined && Object.hasOwn(header.context, '$NODE');
  const context =
    hadNodes || decoded.size > 0 ? { ...(header.context ?? {}), $NODE } : (header.context ?? {});
  return parseExecutionState({ ...header, context });
}

function nodesOf(state: ExecutionState): Record<string, unknown> {
  const nodes = state.context.$NODE;
  if (nodes === undefined) return {};
  if (typeof nodes !== 'object' || nodes === null || Array.isArray(nodes)) {
    throw new StateSerializationError(
      '$NODE',
      `${Array.isArray(nodes) ? 'an array' : typeof nodes} where a map of node results belongs`,
    );
  }
  return nodes as Record<string, unknown>;
}
