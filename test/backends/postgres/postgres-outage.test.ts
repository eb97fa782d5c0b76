/**
 * PostgreSQL failures that must come out as StoreUnavailableError (retryable) within the
 * store's time limits, with the same store object working again afterwards.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { StoreUnavailableError } from '../../../src/errors/store-errors.js';
import {
  PostgresExecutionStore,
  type PostgresStoreOptions,
} from '../../../src/backends/postgres/postgres-execution-store.js';
import { newExecutionState } from '../../../src/state/execution-state.js';
import { rejectionOf } from '../../contracts/store-harness.js';
import { POSTGRES_URL, postgresGate } from '../../support/services.js';
import {
  dropSchema,
  terminateBackends,
  terminateWhileLocked,
  testSchema,
  withAdmin,
} from '../support/postgres-schema.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const gate = await postgresGate();
const schema = testSchema('plaita_outage');
const applicationName = schema;
const CONNECT_TIMEOUT_MS = 500;
let proxy: TcpProxy;
let stores: PostgresExecutionStore[] = [];

function open(
  connectionString: string,
  options: PostgresStoreOptions = {},
): PostgresExecutionStore {
  const store = new PostgresExecutionStore(
    { connectionString },
    { schema, applicationName, connectTimeoutMs: CONNECT_TIMEOUT_MS, ...options },
  );
  stores.push(store);
  return store;
}

/** The same database as POSTGRES_URL, reached through the proxy. */
function viaProxy(): string {
  const url = new URL(POSTGRES_URL);
  url.host = proxy.url;
  return url.toString();
}

async function expectUnavailable(
  operation: Promise<unknown>,
  withinMs: number,
): Promise<StoreUnavailableError> {
  const started = Date.now();
  const error = await rejectionOf(operation);
  expect(Date.now() - started).toBeLessThan(withinMs);
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(error.retryable).toBe(true);
  expect(error.cause).toBeDefined();
  return error as StoreUnavailableError;
}

const state = (version = 0) =>
  newExecutionState({ executionId: 'outage-1', tenantId: 'outage', version });

beforeAll(async () => {
  if (!gate.available) return;
  const { hostname, port } = new URL(POSTGRES_URL);
  proxy = await TcpProxy.start({ host: hostname, port: Number(port || 5432) });
});
afterEach(async () => {
  if (!gate.available) return;
  const closing = stores;
  stores = [];
  proxy.mode = 'forward';
  proxy.freeze(false);
  await proxy.restart();
  await Promise.all(closing.map((s) => s.close()));
});
afterAll(async () => {
  if (!gate.available) return;
  await proxy.stop();
  await dropSchema(schema);
});

gate.describe('PostgreSQL outages', () => {
  gate.it(
    'a store pointed at a closed port rejects with StoreUnavailableError within connectTimeoutMs',
    async () => {
      const store = open('postgres://postgres@127.0.0.1:1/test');
      const error = await expectUnavailable(store.save(state()), CONNECT_TIMEOUT_MS);
      expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
      await expectUnavailable(store.load('x'), CONNECT_TIMEOUT_MS);
      await expectUnavailable(store.list(), CONNECT_TIMEOUT_MS);
    },
  );

  gate.it(
    'a server that accepts connections but never answers rejects within connectTimeoutMs, every time',
    async () => {
      proxy.mode = 'blackhole';
      const store = open(viaProxy());
      await expectUnavailable(store.load('x'), CONNECT_TIMEOUT_MS + 300);
      await expectUnavailable(store.save(state()), CONNECT_TIMEOUT_MS + 300);
      proxy.mode = 'forward';
      await store.save(state());
      expect(await store.load('outage-1', { tenantId: 'outage' })).toMatchObject({ version: 0 });
    },
  );

  gate.it(
    'a Postgres store whose connections are terminated (pg_terminate_backend) rejects with StoreUnavailableError (retryable), then works again',
    async () => {
      const store = open(POSTGRES_URL);
      await store.save(state(1));
      const restore = await terminateWhileLocked(schema, applicationName);
      try {
        const error = await expectUnavailable(store.save(state(2)), 5000);
        expect((error.cause as { code?: string }).code).toBe('57P01');
      } finally {
        await restore();
      }
      expect(await store.load('outage-1', { tenantId: 'outage' })).toMatchObject({ version: 1 });
      await store.save(state(3));
      expect(await store.load('outage-1', { tenantId: 'outage' })).toMatchObject({ version: 3 });
    },
  );

  gate.it(
    'a server that refuses writes as read-only (the old primary after a failover) is transient, not the execution’s fault',
    async () => {
      await open(POSTGRES_URL).save(state(1)); // the schema, migrated by a writable connection
      const url = new URL(POSTGRES_URL);
      url.searchParams.set('options', '-c default_transaction_read_only=on');
      const standbyLike = open(url.toString());
      expect(await standbyLike.load('outage-1', { tenantId: 'outage' })).toMatchObject({
        version: 1,
      });
      const error = await expectUnavailable(standbyLike.save(state(2)), 5000);
      expect((error.cause as { code?: string }).code).toBe('25006');
    },
  );

  gate.it(
    'idle connections killed by the server do not crash the process, and the pool replaces them',
    async () => {
      const store = open(POSTGRES_URL);
      await Promise.all([store.load('a'), store.load('b'), store.load('c')]);
      expect(await terminateBackends(applicationName)).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await store.save(state(4));
      expect(await store.load('outage-1', { tenantId: 'outage' })).toMatchObject({ version: 4 });
    },
  );

  for (const [how, cause] of [
    ['reset', 'ECONNRESET'],
    ['close', undefined],
  ] as const) {
    gate.it(
      `a connection cut mid-operation (${how}: ${cause ?? 'no code at all'}) and a server that is down are transient; the store recovers when it is back`,
      async () => {
        const store = open(viaProxy());
        await store.save(state(5));
        const unlock = await holdExecutionsLock();
        try {
          const pending = store.save(state(6));
          await new Promise((resolve) => setTimeout(resolve, 200));
          proxy.dropConnections(how);
          const cut = await expectUnavailable(pending, 2000);
          expect((cut.cause as { code?: string }).code).toBe(cause);
        } finally {
          await unlock();
        }
        await proxy.stop();
        const down = await expectUnavailable(
          store.load('outage-1', { tenantId: 'outage' }),
          CONNECT_TIMEOUT_MS,
        );
        expect((down.cause as { code?: string }).code).toBe('ECONNREFUSED');
        await proxy.restart();
        expect(await store.load('outage-1', { tenantId: 'outage' })).toMatchObject({ version: 5 });
      },
    );
  }

  gate.it(
    'an operation stalled on a frozen connection rejects within statementTimeoutMs; the store then works',
    async () => {
      const store = open(viaProxy(), { statementTimeoutMs: 700 });
      await store.save(state(7));
      proxy.freeze(true);
      await expectUnavailable(store.load('outage-1', { tenantId: 'outage' }), 700 + 500);
      proxy.freeze(false);
      expect(await store.load('outage-1', { tenantId: 'outage' })).toMatchObject({ version: 7 });
    },
  );
});

/** Holds a lock on the executions table so a save waits inside the server; resolves to release. */
async function holdExecutionsLock(): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = withAdmin(async (client) => {
    await client.query('BEGIN');
    await client.query(`LOCK TABLE "${schema}".executions IN ACCESS EXCLUSIVE MODE`);
    locked();
    await released;
    await client.query('ROLLBACK');
  });
  await isLocked;
  return async () => {
    release();
    await holder;
  };
}
