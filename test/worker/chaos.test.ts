import { afterEach, expect } from 'vitest';
import { isTerminal } from '../../src/state/execution-state.js';
import { silentLogger } from '../../src/util/logger.js';
import { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../src/backends/redis/store/redis-flow-store.js';
import { RedisStreamQueue } from '../../src/backends/redis/queue/redis-stream-queue.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { startRedisServer, type PrivateRedisServer } from '../support/redis-server.js';
import { REDIS_URL, redisGate } from '../support/services.js';
import { chain, redisRuntime, testRegistry } from './support/redis-runtime.js';
import { startWorkerProcess, stopAll, type WorkerProcess } from './support/worker-processes.js';
import { Redis } from 'ioredis';

/**
 * Real faults: worker processes killed with SIGKILL, stopped with SIGSTOP, drained with
 * SIGTERM; a Redis server killed and restarted. Workers run the built code (dist/).
 */
const gate = await redisGate();
const processes: WorkerProcess[] = [];
let rt: ReturnType<typeof redisRuntime> | undefined;
let server: PrivateRedisServer | undefined;

afterEach(async () => {
  await stopAll(processes.splice(0));
  await rt?.close();
  rt = undefined;
  await server?.stop();
  server = undefined;
});

const envOf = (r: NonNullable<typeof rt>, extra: Record<string, string | number> = {}) => ({
  REDIS_URL,
  PREFIX: r.prefix,
  STREAM: r.stream,
  VISIBILITY_MS: 1000,
  LEASE_TTL_MS: 1000,
  ...extra,
});

async function spawn(name: string, env: Record<string, string | number>): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(name, env);
  processes.push(worker);
  return worker;
}

async function allTerminal(
  r: NonNullable<typeof rt>,
  ids: readonly string[],
  timeoutMs: number,
): Promise<Map<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(ids.map((id) => r.client.get(id)));
    if (states.every((s) => s && isTerminal(s.status)))
      return new Map(states.map((s) => [s!.executionId, s!.status]));
    if (Date.now() > deadline) {
      const open = states
        .filter((s) => !s || !isTerminal(s.status))
        .map((s) => `${s?.executionId}:${s?.status}`);
      throw new Error(
        `${open.length} executions still open after ${timeoutMs} ms: ${open.slice(0, 5).join(', ')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

gate.describe('chaos: real processes, real signals, a real Redis restart', () => {
  gate.it(
    'kill -9: two workers, 200 executions of 5 × 20 ms nodes, one worker SIGKILLed every ~1.5 s: all complete, duplicates bounded',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const nodes = ['n1', 'n2', 'n3', 'n4', 'n5'].map((id) => ({ type: 'sleep', id, ms: 20 }));
      const flow = chain(nodes);
      const ids = await Promise.all(
        Array.from({ length: 200 }, (_, i) => rt!.client.start(flow, { i })),
      );
      const env = envOf(rt, { CONCURRENCY: 16, MAX_NODE_ATTEMPTS: 5 });
      const names = ['w1', 'w2'];
      const current = await Promise.all(names.map((n) => spawn(n, env)));
      let kills = 0;
      let done = false;
      const chaos = (async () => {
        for (let round = 0; !done; round++) {
          // The first kill lands early (the whole batch takes only a few seconds), then every ~1.5 s.
          await new Promise((r) => setTimeout(r, round === 0 ? 300 : 1500));
          if (done) break;
          const victim = round % 2;
          current[victim]!.signal('SIGKILL');
          await current[victim]!.exited;
          kills++;
          current[victim] = await spawn(`${names[victim]}-${round}`, env);
        }
      })();
      const statuses = await allTerminal(rt, ids, 90_000).finally(() => (done = true));
      await chaos;
      expect([...statuses.values()].every((s) => s === 'completed')).toBe(true);
      expect(kills).toBeGreaterThanOrEqual(1);
      let duplicates = 0;
      for (const id of ids) {
        const state = (await rt.client.get(id))!;
        for (const { id: node } of nodes) {
          const runs = await rt.runs(id, node);
          expect(runs).toBeGreaterThanOrEqual(1);
          expect(runs).toBeLessThanOrEqual(5); // maxNodeAttempts
          expect(state.attempts[node]).toBeGreaterThanOrEqual(runs); // every start is visible
          duplicates += runs - 1;
        }
      }
      console.log(
        `kill -9: ${kills} kills, ${duplicates} duplicate node runs over ${ids.length * nodes.length}`,
      );
    },
    150_000,
  );

  gate.it(
    'a node that kills its own worker every time ends node_crash_loop naming the node',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const id = await rt.client.start(
        chain([
          { type: 'sleep', id: 'ok', ms: 1 },
          { type: 'suicide', id: 'boom' },
        ]),
        {},
      );
      const env = envOf(rt, { MAX_NODE_ATTEMPTS: 3, MAX_DELIVERIES: 50, CONCURRENCY: 2 });
      const deadline = Date.now() + 60_000;
      let restarts = 0;
      while (Date.now() < deadline) {
        const state = await rt.client.get(id);
        if (state && isTerminal(state.status)) break;
        const worker = await spawn(`crash-${restarts++}`, env);
        await Promise.race([worker.exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      const state = (await rt.client.get(id))!;
      expect(state.status).toBe('error');
      expect(state.error).toMatchObject({ code: 'node_crash_loop', node: 'boom' });
      expect(await rt.runs(id, 'boom')).toBe(3);
      expect(await rt.runs(id, 'ok')).toBe(1);
    },
    90_000,
  );

  gate.it(
    'an event whose delivery kills its worker every time ends node_crash_loop naming the waiting node',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const id = await rt.client.start(chain([{ type: 'die-on-resume', id: 'wait' }]), {});
      const env = envOf(rt, { MAX_NODE_ATTEMPTS: 3, MAX_DELIVERIES: 50, CONCURRENCY: 2 });
      const first = await spawn('suspend', env);
      await expect
        .poll(async () => (await rt!.client.get(id))?.status, { timeout: 20_000 })
        .toBe('suspended');
      first.signal('SIGTERM');
      await first.exited;
      await rt.client.sendEvent(id, { type: 'go', data: {} });
      const deadline = Date.now() + 60_000;
      let restarts = 0;
      while (Date.now() < deadline) {
        const state = await rt.client.get(id);
        if (state && isTerminal(state.status)) break;
        const worker = await spawn(`resume-crash-${restarts++}`, env);
        await Promise.race([worker.exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      const state = (await rt.client.get(id))!;
      expect(state.status).toBe('error');
      expect(state.error).toMatchObject({ code: 'node_crash_loop', node: 'wait' });
      expect(await rt.runs(id, 'wait')).toBe(3);
    },
    90_000,
  );

  gate.it(
    'fencing: a worker SIGSTOPped past its lease loses; its stale write is rejected and the new holder wins',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const id = await rt.client.start(chain([{ type: 'sleep', id: 'stall', ms: 1500 }]), {});
      const a = await spawn('A', envOf(rt));
      await expect
        .poll(async () => rt!.runs(id, 'stall'), { timeout: 10_000, interval: 20 })
        .toBe(1);
      a.signal('SIGSTOP');
      const b = await spawn('B', envOf(rt));
      const done = await rt.client.waitFor(id, { timeoutMs: 20_000, until: 'terminal' });
      expect(done.status).toBe('completed');
      expect((done.result as { stall: { by: string } }).stall.by).toBe('B');
      a.signal('SIGCONT');
      await new Promise((r) => setTimeout(r, 2500)); // A's node finishes and tries to checkpoint
      const after = (await rt.client.get(id))!;
      expect(after.version).toBe(done.version);
      expect((after.result as { stall: { by: string } }).stall.by).toBe('B');
      expect(await rt.runs(id, 'stall')).toBe(2);
      void b;
    },
    60_000,
  );

  gate.it(
    'drain on SIGTERM: the in-flight step finishes and is checkpointed, then the worker exits 0',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const id = await rt.client.start(
        chain([
          { type: 'sleep', id: 'slow', ms: 1200 },
          { type: 'sleep', id: 'next', ms: 1 },
        ]),
        {},
      );
      const w = await spawn('drainer', envOf(rt, { VISIBILITY_MS: 30_000, LEASE_TTL_MS: 30_000 }));
      await expect
        .poll(async () => rt!.runs(id, 'slow'), { timeout: 10_000, interval: 20 })
        .toBe(1);
      w.signal('SIGTERM');
      expect(await w.exited).toBe(0);
      const state = (await rt.client.get(id))!;
      expect(Object.keys(state.context.$NODE as object)).toContain('slow'); // the step finished and was stored
      // Whatever was cut off comes back: a fresh worker finishes without re-running `slow`.
      await rt.queue.enqueue({ v: 1, kind: 'run', executionId: id, tenantId: 'default' });
      await spawn('finisher', envOf(rt));
      expect((await rt.client.waitFor(id, { timeoutMs: 20_000, until: 'terminal' })).status).toBe(
        'completed',
      );
      expect(await rt.runs(id, 'slow')).toBe(1);
    },
    60_000,
  );

  gate.it(
    'a delay node fires exactly once across a worker restart',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const id = await rt.client.start(
        chain([
          { type: 'delay', id: 'd', delay_seconds: 1.5 },
          { type: 'sleep', id: 'after', ms: 1 },
        ]),
        {},
      );
      const first = await spawn('before', envOf(rt));
      await expect
        .poll(async () => (await rt!.client.get(id))?.status, { timeout: 10_000 })
        .toBe('suspended');
      first.signal('SIGKILL');
      await first.exited;
      await new Promise((r) => setTimeout(r, 2000)); // the timer falls due while no worker runs
      await spawn('after-1', envOf(rt));
      await spawn('after-2', envOf(rt));
      expect((await rt.client.waitFor(id, { timeoutMs: 20_000, until: 'terminal' })).status).toBe(
        'completed',
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(await rt.runs(id, 'after')).toBe(1);
    },
    60_000,
  );

  gate.it(
    'Redis restart: a private redis-server (AOF) killed and restarted mid-run — every execution finishes',
    async () => {
      server = await startRedisServer({ persistence: 'aof' });
      const url = server.url;
      const prefix = `restart${Date.now()}`;
      const counters = new Redis(url, {
        maxRetriesPerRequest: 1,
        lazyConnect: true,
        enableOfflineQueue: false,
      });
      const registry = testRegistry(counters, prefix);
      const store = new RedisExecutionStore({ url }, { prefix, connectTimeoutMs: 500 });
      const flows = new RedisFlowStore({ url }, { prefix, connectTimeoutMs: 500 });
      const queue = new RedisStreamQueue(
        { url },
        { prefix, visibilityTimeoutMs: 1000, connectTimeoutMs: 500 },
      );
      const client = new PlaitaClient({ store, flows, queue, registry });
      const worker = new FlowWorker({
        store,
        flows,
        queue,
        registry,
        concurrency: 8,
        visibilityTimeoutMs: 1000,
        leaseTtlMs: 1000,
        maxDeliveries: 50,
        pollBlockMs: 50,
        logger: silentLogger,
      });
      try {
        const flow = chain(
          ['a', 'b', 'c', 'd', 'e']
            .map((id) => ({ type: 'assignment', id, output: `$F.add(1, 1)` }))
            .concat([{ type: 'delay', id: 'pause', delay_seconds: 0.1 } as never]),
        );
        const ids = await Promise.all(
          Array.from({ length: 30 }, (_, i) => client.start(flow, { i })),
        );
        worker.start();
        await new Promise((r) => setTimeout(r, 150));
        await server.kill('SIGKILL');
        await new Promise((r) => setTimeout(r, 1000));
        await server.restart();
        const deadline = Date.now() + 60_000;
        let open = ids.length;
        while (Date.now() < deadline) {
          const states = await Promise.all(ids.map((id) => client.get(id).catch(() => null)));
          open = states.filter((s) => !s || s.status !== 'completed').length;
          if (open === 0) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(open).toBe(0);
      } finally {
        await worker.stop();
        await Promise.all([store.close(), flows.close(), queue.close()]);
        counters.disconnect();
      }
    },
    90_000,
  );
});
