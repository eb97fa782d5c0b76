/**
 * THE conformance suite of `ExecutionStore` (docs/durable-contract.md §3): every backend runs this one
 * function from a few-line test file, e.g.
 *
 *   describeExecutionStore('sqlite', (options) => new SqliteExecutionStore({ path, ...options }));
 *
 * The factory contract (see ExecutionStoreFactory): it is called at least once per test with
 * the options a case needs; the suite closes every store it gets. Stores from one factory may
 * share a backend: the suite uses a fresh tenant per test and random ids. The test file drops
 * what the backend holds (schema, file, key prefix) in its own afterAll.
 */
import { describe } from 'vitest';
import { checkpointCases } from './checkpoint.cases.js';
import { claimCases } from './claim.cases.js';
import { corpusCases } from './corpus.cases.js';
import { createOnlyCases } from './create-only.cases.js';
import { expiryCases } from './expiry.cases.js';
import { groupCommitCases } from './group-commit.cases.js';
import { hostileIdCases } from './hostile-ids.cases.js';
import { leaseCases } from './lease.cases.js';
import { listCases } from './list.cases.js';
import { outageCases } from './outage.cases.js';
import { roundTripCases } from './round-trip.cases.js';
import { serializationCases } from './serialization.cases.js';
import { layoutEntryCases } from './layout-entries.cases.js';
import type { ExecutionStoreFactory, ExecutionStoreSuiteOptions } from './store-harness.js';

export type {
  ExecutionStoreFactory,
  ExecutionStoreSuiteOptions,
  OutageHook,
} from './store-harness.js';

export function describeExecutionStore(
  name: string,
  factory: ExecutionStoreFactory,
  options: ExecutionStoreSuiteOptions = {},
): void {
  describe(`ExecutionStore conformance: ${name}`, () => {
    roundTripCases(factory, options.propertyRuns ?? 60);
    serializationCases(factory);
    corpusCases(factory);
    hostileIdCases(factory);
    checkpointCases(factory);
    layoutEntryCases(factory, options.legacyLayout);
    leaseCases(factory);
    claimCases(factory);
    createOnlyCases(factory);
    groupCommitCases(factory, options.persistent ?? true);
    listCases(factory);
    expiryCases(factory, options.expiresBySweep ?? true);
    if (options.outage) outageCases(factory, options.outage);
  });
}
