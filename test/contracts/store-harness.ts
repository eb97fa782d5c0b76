/**
 * What every case of the execution-store suite shares: the factory contract, a per-test tenant,
 * and state builders. Backend-agnostic: nothing here knows which store runs.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect } from 'vitest';
import type { PlaitaError } from '../../src/errors/plaita-error.js';
import type { ExecutionStore, ExecutionStoreOptions } from '../../src/store/execution-store.js';
import { newExecutionState, type ExecutionState } from '../../src/state/execution-state.js';
import { findDifference } from '../state/strict-difference.js';
import type { LegacyLayoutHook } from './layout-entries.cases.js';

/**
 * Opens a store with these options (terminalTtlMs, maxStateBytes, connectTimeoutMs; absent
 * ones at their defaults). Called several times per test; the suite closes every store it got.
 * Stores from one factory may share a backend (one SQLite file, one Postgres schema, one Redis
 * key prefix): the suite isolates itself with a fresh tenant per test and random execution ids,
 * and `sweepExpired` cases only assert on their own executions. Drop the backend (schema, file,
 * key prefix) in the test file's own afterAll.
 */
export type ExecutionStoreFactory = (
  options: ExecutionStoreOptions,
) => ExecutionStore | Promise<ExecutionStore>;

/**
 * Makes the backend fail for `store` (e.g. kills its connections while a write waits on a lock,
 * or holds the SQLite write lock): the next `save` must reject with StoreUnavailableError within
 * the store's `connectTimeoutMs`. Resolves to a function that ends the outage.
 */
export type OutageHook = (store: ExecutionStore) => Promise<() => Promise<void>>;

export interface ExecutionStoreSuiteOptions {
  /** Runs the outage cases: a transient failure, then the same store object working again. */
  outage?: OutageHook;
  /**
   * True (default) when `sweepExpired(now)` is what removes expired executions and reports how
   * many; false for a backend whose server expires keys itself (Redis TTL), where the sweep may
   * return 0 and an explicit future `now` cannot expire anything early.
   */
  expiresBySweep?: boolean;
  /** fast-check runs of the round-trip property (default 60). */
  propertyRuns?: number;
  /** Rewrites a saved execution in the layout before timing entries (a persistent backend). */
  legacyLayout?: LegacyLayoutHook;
  /** False when each store object is its own backend (memory): nothing outlives close(). */
  persistent?: boolean;
}

export interface Harness {
  /** A store with default options, opened before each test. */
  readonly store: ExecutionStore;
  /** A fresh tenant per test: lists and sweeps see only this test's executions. */
  readonly tenant: string;
  /** Another store from the factory (closed after the test). */
  open(options?: ExecutionStoreOptions): Promise<ExecutionStore>;
  /** A valid state in this test's tenant with a random id. */
  state(overrides?: Partial<ExecutionState>): ExecutionState;
}

/** Registers the before/after hooks of one describe block and returns its harness. */
export function useHarness(factory: ExecutionStoreFactory): Harness {
  let opened: ExecutionStore[] = [];
  let store: ExecutionStore | undefined;
  let tenant = '';
  const open = async (options: ExecutionStoreOptions = {}): Promise<ExecutionStore> => {
    const created = await factory(options);
    opened.push(created);
    return created;
  };
  beforeEach(async () => {
    tenant = `tenant-${randomUUID()}`;
    store = await open();
  });
  afterEach(async () => {
    const closing = opened;
    opened = [];
    await Promise.all(closing.map((s) => s.close()));
  });
  return {
    get store() {
      return store!;
    },
    get tenant() {
      return tenant;
    },
    open,
    state: (overrides = {}) =>
      newExecutionState({ executionId: randomUUID(), tenantId: tenant, ...overrides }),
  };
}

/** Strict deep equality (types, key order, -0, holes): fails with where the first difference is. */
export function expectSameState(actual: ExecutionState | null, expected: ExecutionState): void {
  expect(actual).not.toBeNull();
  expect(findDifference(actual, expected)).toBeUndefined();
}

/** The rejection of `promise`, which must reject. */
export async function rejectionOf(promise: Promise<unknown>): Promise<PlaitaError> {
  try {
    await promise;
  } catch (error) {
    return error as PlaitaError;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A context shaped like the engine's checkpoint (docs/flow-format.md §6.6) with these node results. */
export function checkpointContext(
  nodes: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const ids = Object.keys(nodes);
  return {
    $INPUT: { customer: 42 },
    $GLOBAL: {},
    ...extra,
    $NODE: nodes,
    $LAST_NODE: ids.at(-1) ?? null,
    $VISITS: Object.fromEntries(ids.map((id) => [id, 1])),
  };
}

/** The same state with `$NODE` (and `$VISITS`, `$LAST_NODE`) replaced. */
export function withNodes(
  state: ExecutionState,
  nodes: Record<string, unknown>,
  version = state.version + 1,
): ExecutionState {
  return { ...state, version, context: checkpointContext(nodes, { $INPUT: state.context.$INPUT }) };
}
