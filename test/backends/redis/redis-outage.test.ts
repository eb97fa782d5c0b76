import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { StoreUnavailableError } from '../../../src/errors/store-errors.js';
import { type PlaitaError } from '../../../src/errors/plaita-error.js';
import { newExecutionState, type ExecutionState } from '../../../src/state/execution-state.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { SCRIPTS } from '../../../src/backends/redis/store/redis-store-scripts.js';
import { freePort, startRedisServer, type PrivateRedisServer } from '../../support/redis-server.js';
import { redisGate } from '../../support/services.js';

/**
 * "Never hang, never confuse down with broken", against a PRIVATE redis-server this file
 * starts, kills, blocks and restarts (the shared server is never touched).
 */
const gate = await redisGate();

const CONNECT_TIMEOUT_MS = 800;
/** Timer lateness and a loaded CI machine; the assertion is about not hanging, not about ms. */
const SLACK_MS = 400;

let server: PrivateRedisServer;
let admin: Redis;
const opened: RedisExecutionStore[] = [];

function open(
  url: string,
  options: { commandTimeoutMs?: number; connectTimeoutMs?: number; prefix?: string } = {},
): RedisExecutionStore {
  const store = new RedisExecutionStore(
    { url },
    { prefix: 'outage', connectTimeoutMs: CONNECT_TIMEOUT_MS, ...options },
  );
  opened.push(store);
  return store;
}

function state(id: string, extra: Partial<ExecutionState> = {}): ExecutionState {
  return newExecutionState({
    executionId: id,
    context: { $NODE: { a: { n: 1 } }, $VISITS: { a: 1 } },
    ...extra,
  });
}

/** The rejection of `promise` and how long it took to come. */
async function timedRejection(
  promise: Promise<unknown>,
): Promise<{ error: PlaitaError; ms: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error: error as PlaitaError, ms: performance.now() - started };
  }
  throw new Error('expected a rejection, but the operation succeeded');
}

function expectUnavailable(error: PlaitaError): void {
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(error.code).toBe('store_unavailable');
  expect(error.retryable).toBe(true);
  expect(error.cause).toBeDefined();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

gate.describe('RedisExecutionStore outages (private redis-server)', () => {
  beforeAll(async () => {
    server = await startRedisServer({ persistence: 'aof' });
    admin = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined); // the server is killed on purpose below
  });
  afterEach(async () => {
    if (server.running) server.resume();
    else await server.restart();
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    admin.disconnect();
    await server.stop();
  });

  gate.it(
    'a killed server makes operations reject with StoreUnavailableError within connectTimeoutMs; the same store works once it is back, data intact',
    async () => {
      const store = open(server.url, { prefix: 'outage-kill' });
      const saved = state('survivor');
      await store.save(saved);
      await server.kill('SIGKILL');

      for (const operation of [
        () => store.save(state('during-outage')),
        () => store.load('survivor'),
        () => store.list(),
      ]) {
        const { error, ms } = await timedRejection(operation());
        expectUnavailable(error);
        expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS + SLACK_MS);
      }

      await server.restart(); // same port, same dir: the AOF brings the data back
      await expect
        .poll(() => store.load('survivor').catch(() => 'unavailable'), {
          timeout: 5000,
          interval: 100,
        })
        .toEqual(saved);
      await store.save(state('after-outage'));
      expect((await store.load('after-outage'))?.executionId).toBe('after-outage');
      expect((await store.list()).items.map((i) => i.executionId).sort()).toEqual([
        'after-outage',
        'survivor',
      ]);
    },
  );

  gate.it(
    'a store pointed at a closed port rejects within connectTimeoutMs, with the connection error as cause',
    async () => {
      const port = await freePort();
      const store = open(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 500 });
      const { error, ms } = await timedRejection(store.save(state('nowhere')));
      expectUnavailable(error);
      expect(ms).toBeGreaterThanOrEqual(300); // it waited for the server to come, it did not give up at once...
      expect(ms).toBeLessThan(500 + SLACK_MS); // ...and not longer than connectTimeoutMs
      expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
      // Still unavailable, still bounded, on the next call.
      const second = await timedRejection(store.load('nowhere'));
      expectUnavailable(second.error);
      expect(second.ms).toBeLessThan(500 + SLACK_MS);
    },
  );

  gate.it(
    'a server blocked by DEBUG SLEEP makes a save reject via the command timeout instead of hanging',
    async () => {
      const store = open(server.url, { connectTimeoutMs: 3000, commandTimeoutMs: 300 });
      await store.save(state('before-block'));
      await admin.connect().catch(() => undefined);
      const blocking = admin.call('DEBUG', 'SLEEP', '1.5');
      await sleep(50);
      const { error, ms } = await timedRejection(store.save(state('blocked', { version: 1 })));
      expectUnavailable(error);
      expect(ms).toBeLessThan(300 + SLACK_MS);
      await blocking;
      await store.save(state('after-block'));
      expect((await store.load('after-block'))?.executionId).toBe('after-block');
    },
  );

  gate.it('a blackholed server (SIGSTOP) cannot hang a connected store nor a new one', async () => {
    const connected = open(server.url, { connectTimeoutMs: 600, commandTimeoutMs: 300 });
    await connected.save(state('pre-pause'));
    server.pause();
    const inFlight = await timedRejection(connected.load('pre-pause'));
    expectUnavailable(inFlight.error);
    expect(inFlight.ms).toBeLessThan(300 + SLACK_MS);

    const fresh = open(server.url, { connectTimeoutMs: 600, commandTimeoutMs: 300 });
    const connecting = await timedRejection(fresh.load('pre-pause'));
    expectUnavailable(connecting.error);
    expect(connecting.ms).toBeLessThan(600 + SLACK_MS);

    server.resume();
    await expect
      .poll(
        () =>
          fresh.load('pre-pause').then(
            (s) => s?.executionId,
            () => 'unavailable',
          ),
        { timeout: 5000, interval: 100 },
      )
      .toBe('pre-pause');
    expect((await connected.load('pre-pause'))?.executionId).toBe('pre-pause');
  });

  gate.it(
    'recovers from NOSCRIPT: after SCRIPT FLUSH a save still works and reloads its script',
    async () => {
      const store = open(server.url);
      await store.save(state('noscript'));
      await admin.connect().catch(() => undefined);
      const sha = SCRIPTS.saveStates.source.sha;
      expect(await admin.script('EXISTS', sha)).toEqual([1]);
      await admin.script('FLUSH');
      expect(await admin.script('EXISTS', sha)).toEqual([0]);
      await store.save(state('noscript', { version: 2 }));
      expect((await store.load('noscript'))?.version).toBe(2);
      expect(await admin.script('EXISTS', sha)).toEqual([1]);
    },
  );

  gate.it(
    'the restarted server is found by the background reconnect, without a new store',
    async () => {
      const store = open(server.url);
      await store.save(state('reconnect'));
      await server.kill('SIGKILL');
      await sleep(300); // let the client notice and start its reconnect loop
      await server.restart();
      // The capped backoff (≤ connectTimeoutMs / 4) finds the server again; on a busy machine
      // the restart itself may take longer than one ready wait, so a load that still finds it
      // down (StoreUnavailableError, retryable by contract) is tried again. No new store.
      const deadline = Date.now() + 15_000;
      for (;;) {
        const loaded = await store.load('reconnect').then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        if ('value' in loaded) {
          expect(loaded.value?.executionId).toBe('reconnect');
          break;
        }
        expect(loaded.error).toBeInstanceOf(StoreUnavailableError);
        if (Date.now() > deadline) throw loaded.error;
        await sleep(100);
      }
    },
  );
});
