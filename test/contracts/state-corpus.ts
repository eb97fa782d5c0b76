/**
 * A fixed corpus of saves, good and bad, with the outcome every store must give: `ok` (it
 * loads back strictly equal) or the error `code`. Running the same table on every backend is
 * what makes them agree: a store that accepts what another refuses fails here.
 */
import type { ExecutionStore, SaveOptions } from '../../src/store/execution-store.js';
import { newExecutionState, type ExecutionState } from '../../src/state/execution-state.js';
import { findDifference } from '../state/strict-difference.js';
import { checkpointContext } from './store-harness.js';

/** The corpus store's limit: small, so size cases stay cheap. */
export const CORPUS_MAX_STATE_BYTES = 8 * 1024;

export interface CorpusCase {
  name: string;
  /** The state to save; `base` is a valid state with a fresh id in the test's tenant. */
  state(base: ExecutionState): ExecutionState;
  /** Runs before the save (e.g. saves a previous version, takes a lease); returns save options. */
  before?(store: ExecutionStore, state: ExecutionState): Promise<SaveOptions>;
  expected: 'ok' | 'state_not_serializable' | 'state_too_large' | 'fence_rejected';
}

class Point {
  constructor(readonly x: number) {}
}

const nodes =
  (n: Record<string, unknown>) =>
  (base: ExecutionState): ExecutionState => ({ ...base, context: checkpointContext(n) });
const field =
  (f: Partial<Record<keyof ExecutionState, unknown>>) =>
  (base: ExecutionState): ExecutionState =>
    ({ ...base, ...f }) as ExecutionState;

async function saveFirst(store: ExecutionStore, state: ExecutionState): Promise<void> {
  await store.save({
    ...state,
    version: 0,
    context: checkpointContext({ start: 'x'.repeat(3000), other: 'y'.repeat(3000) }),
  });
}

async function leased(store: ExecutionStore, state: ExecutionState): Promise<number> {
  await store.save({ ...state, version: 0 });
  const lease = await store.acquireLease(state.executionId, {
    tenantId: state.tenantId,
    owner: 'w1',
    ttlMs: 60_000,
  });
  return lease!.generation;
}

export const STATE_CORPUS: CorpusCase[] = [
  { name: 'a minimal queued state', state: (b) => b, expected: 'ok' },
  {
    name: 'every special type in one node',
    state: nodes({
      all: {
        d: new Date(5),
        s: new Set([1]),
        m: new Map([[{ k: 1 }, 2]]),
        b: 10n,
        u: undefined,
        n: NaN,
        z: -0,
        i: -Infinity,
        r: /a+/g,
        bytes: new Uint8Array([1, 2]),
      },
    }),
    expected: 'ok',
  },
  {
    name: 'U+0000 and lone surrogates in strings and keys',
    state: nodes({ s: { ['\u0000']: '\ud800', t: 'a\u0000' } }),
    expected: 'ok',
  },
  { name: 'a node id holding U+0000', state: nodes({ ['a\u0000b']: 1 }), expected: 'ok' },
  {
    name: 'the tag key used as data',
    state: nodes({ t: { '~t': 'Date', v: 'not a date' } }),
    expected: 'ok',
  },
  {
    name: 'a sparse array',
    state: nodes({ holes: Object.assign(new Array<number>(3), { 0: 1, 2: 3 }) }),
    expected: 'ok',
  },
  {
    name: 'a completed state with a result',
    state: field({
      status: 'completed',
      result: { ok: true },
      endedAt: '2030-01-01T00:00:00.000Z',
    }),
    expected: 'ok',
  },
  { name: 'a function', state: nodes({ f: () => 1 }), expected: 'state_not_serializable' },
  { name: 'a symbol', state: nodes({ s: Symbol('s') }), expected: 'state_not_serializable' },
  {
    name: 'a class instance',
    state: nodes({ p: new Point(1) }),
    expected: 'state_not_serializable',
  },
  {
    name: 'a promise',
    state: nodes({ p: Promise.resolve(1) }),
    expected: 'state_not_serializable',
  },
  { name: 'a WeakMap', state: nodes({ w: new WeakMap() }), expected: 'state_not_serializable' },
  { name: 'an Error', state: nodes({ e: new Error('x') }), expected: 'state_not_serializable' },
  {
    name: '$NODE as an array',
    state: (b) => ({ ...b, context: { $NODE: [1] } }),
    expected: 'state_not_serializable',
  },
  {
    name: 'an unknown status',
    state: field({ status: 'paused' }),
    expected: 'state_not_serializable',
  },
  {
    name: 'an executionId with a colon',
    state: field({ executionId: 'a:b' }),
    expected: 'state_not_serializable',
  },
  {
    name: 'a createdAt that is not ISO-8601',
    state: field({ createdAt: 'yesterday' }),
    expected: 'state_not_serializable',
  },
  { name: 'a negative version', state: field({ version: -1 }), expected: 'state_not_serializable' },
  {
    name: 'a tenantId holding U+0000',
    state: field({ tenantId: 't\u0000' }),
    expected: 'state_not_serializable',
  },
  {
    name: 'an executionId holding a lone surrogate',
    state: (b) => ({ ...b, executionId: `${b.executionId}\ud800` }),
    expected: 'state_not_serializable',
  },
  {
    name: 'a flowId holding U+0000',
    state: field({ flowId: 'f\u0000' }),
    expected: 'state_not_serializable',
  },
  {
    name: 'an executionId longer than an index holds (512 UTF-8 bytes)',
    state: (b) => ({ ...b, executionId: `${b.executionId}-${'é'.repeat(300)}` }),
    expected: 'state_not_serializable',
  },
  {
    name: 'a flowId longer than an index holds',
    state: field({ flowId: 'f'.repeat(6000) }),
    expected: 'state_not_serializable',
  },
  {
    name: 'a node id of 512 bytes, the most a flow may give',
    state: nodes({ ['n'.repeat(512)]: 1 }),
    expected: 'ok',
  },
  {
    name: 'a node id longer than an index holds',
    state: nodes({ ['n'.repeat(600)]: 1 }),
    expected: 'state_not_serializable',
  },
  {
    name: 'one node over the limit',
    state: nodes({ big: 'x'.repeat(CORPUS_MAX_STATE_BYTES) }),
    expected: 'state_too_large',
  },
  {
    name: 'many nodes over the limit together',
    state: nodes({ a: 'x'.repeat(3000), b: 'y'.repeat(3000), c: 'z'.repeat(3000) }),
    expected: 'state_too_large',
  },
  {
    name: 'an incremental save that pushes the total over the limit',
    state: (b) => ({
      ...b,
      version: 1,
      context: checkpointContext({
        start: 'x'.repeat(3000),
        other: 'y'.repeat(3000),
        third: 'z'.repeat(3000),
      }),
    }),
    before: async (store, state) => (await saveFirst(store, state), { changedNodes: ['third'] }),
    expected: 'state_too_large',
  },
  {
    name: 'an incremental save that replaces a large node with a small one',
    state: (b) => ({
      ...b,
      version: 1,
      context: checkpointContext({
        start: 'small',
        other: 'y'.repeat(3000),
        third: 'z'.repeat(3000),
      }),
    }),
    before: async (store, state) => (
      await saveFirst(store, state),
      { changedNodes: ['start', 'third'] }
    ),
    expected: 'ok',
  },
  {
    name: 'a fenced save with the current generation',
    state: field({ version: 1 }),
    before: async (store, state) => ({ fence: { generation: await leased(store, state) } }),
    expected: 'ok',
  },
  {
    name: 'a fenced save with a stale generation',
    state: field({ version: 1 }),
    before: async (store, state) => ({ fence: { generation: (await leased(store, state)) - 1 } }),
    expected: 'fence_rejected',
  },
  {
    name: 'a fenced save of an execution never saved',
    state: (b) => b,
    before: () => Promise.resolve({ fence: { generation: 0 } }),
    expected: 'fence_rejected',
  },
];

/** Saves one case and reports `ok`, the error code, or what went wrong on the way back. */
export async function corpusOutcome(
  store: ExecutionStore,
  testCase: CorpusCase,
  tenantId: string,
  executionId: string,
): Promise<string> {
  const state = testCase.state(newExecutionState({ executionId, tenantId }));
  try {
    const options = (await testCase.before?.(store, state)) ?? {};
    await store.save(state, options);
  } catch (error) {
    const { code, retryable } = error as { code?: unknown; retryable?: unknown };
    return typeof code === 'string' && retryable === false ? code : `unexpected ${String(error)}`;
  }
  const loaded = await store.load(state.executionId, { tenantId: state.tenantId });
  const difference = findDifference(loaded, state);
  return difference === undefined ? 'ok' : `loaded differently: ${difference}`;
}
