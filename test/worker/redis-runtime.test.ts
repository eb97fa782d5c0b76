import { afterEach, expect } from 'vitest';
import { ExecutionTerminalError, newExecutionState } from '../../src/index.js';
import { RedisExecutionStore } from '../../src/backends/redis/store/redis-execution-store.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { silentLogger } from '../../src/util/logger.js';
import { REDIS_URL, redisGate, type ServiceGate } from '../support/services.js';
import { chain, flakyStore, redisRuntime } from './support/redis-runtime.js';

const gate: ServiceGate = await redisGate();

let rt: ReturnType<typeof redisRuntime> | undefined;
afterEach(async () => {
  await rt?.close();
  rt = undefined;
});

gate.describe('distributed runtime on Redis (store + Redis Streams queue)', () => {
  gate.it(
    'seed: a node returning a function ends state_not_serializable after ONE delivery; nothing pending',
    async () => {
      rt = redisRuntime(REDIS_URL);
      rt.worker();
      const id = await rt.client.start(chain([{ type: 'leaky', id: 'leak' }]), {});
      const state = await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
      expect(state.status).toBe('error');
      expect(state.error).toMatchObject({
        code: 'state_not_serializable',
        node: 'leak',
        retryable: false,
        details: { path: '$NODE.leak.client' },
      });
      expect(await rt.runs(id, 'leak')).toBe(1);
      // The outcome is durable before the ack: the message is acknowledged right after.
      await expect
        .poll(() => rt!.queue.stats(), { timeout: 5000 })
        .toMatchObject({ ready: 0, inFlight: 0, deadLetters: 0 });
      expect(state.timings.leak?.attempts).toBe(1);
    },
  );

  gate.it('seed: a node returning a Date and a Set completes, types intact', async () => {
    rt = redisRuntime(REDIS_URL);
    rt.worker();
    const id = await rt.client.start(chain([{ type: 'rich', id: 'r' }]), {});
    const state = await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    const r = (state.result as Record<string, { at: Date; tags: Set<number> }>).r!;
    expect(state.status).toBe('completed');
    expect(r.at).toBeInstanceOf(Date);
    expect(r.at.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(r.tags).toEqual(new Set([1, 2]));
  });

  for (const [failures, outcome] of [
    [3, 'completed'],
    [5, 'delivery_exhausted'],
  ] as const) {
    gate.it(
      `a store failing ${failures} times (maxDeliveries 5) → ${outcome}, never running for ever`,
      async () => {
        rt = redisRuntime(REDIS_URL, { visibilityTimeoutMs: 300 });
        const store = flakyStore(rt.store, failures);
        const worker = new FlowWorker({
          store,
          flows: rt.flows,
          queue: rt.queue,
          registry: rt.registry,
          maxDeliveries: 5,
          visibilityTimeoutMs: 300,
          leaseTtlMs: 300,
          pollBlockMs: 30,
          logger: silentLogger,
        });
        worker.start();
        try {
          const id = await rt.client.start(
            chain([
              { type: 'sleep', id: 'a', ms: 5 },
              { type: 'sleep', id: 'b', ms: 5 },
            ]),
            {},
          );
          const state = await rt.client.waitFor(id, { timeoutMs: 20_000, until: 'terminal' });
          expect(store.failed).toBe(failures);
          if (outcome === 'completed') {
            expect(state.status).toBe('completed');
          } else {
            expect(state.status).toBe('error');
            expect(state.error?.code).toBe('delivery_exhausted');
            // The outcome is written first, then the message is dead-lettered and acknowledged.
            await expect
              .poll(
                async () =>
                  (await rt!.queue.listDeadLetters()).items.map((d) => [d.reason, d.executionId]),
                { timeout: 5000 },
              )
              .toEqual([['delivery_exhausted', id]]);
          }
          await expect
            .poll(async () => (await rt!.queue.stats()).inFlight, { timeout: 5000 })
            .toBe(0);
        } finally {
          await worker.stop();
        }
      },
    );
  }

  gate.it(
    'poison: garbage, unknown kinds and newer versions are dead-lettered as malformed; the worker keeps running',
    async () => {
      rt = redisRuntime(REDIS_URL);
      rt.worker();
      const key = `${rt.prefix}{${rt.stream}}`;
      await rt.redis.xadd(key, '*', 'payload', 'not json at all');
      await rt.redis.xadd(
        key,
        '*',
        'payload',
        JSON.stringify({ v: 1, kind: 'explode', executionId: 'x', tenantId: 'default' }),
      );
      await rt.redis.xadd(
        key,
        '*',
        'payload',
        JSON.stringify({ v: 2, kind: 'run', executionId: 'x', tenantId: 'default' }),
      );
      await rt.redis.xadd(key, '*', 'nofield', 'x');
      const id = await rt.client.start(chain([{ type: 'sleep', id: 'a', ms: 1 }]), {});
      expect((await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' })).status).toBe(
        'completed',
      );
      await expect
        .poll(async () => (await rt!.queue.listDeadLetters()).items.length, { timeout: 5000 })
        .toBe(4);
      const dead = await rt.queue.listDeadLetters();
      expect(new Set(dead.items.map((d) => d.reason))).toEqual(new Set(['malformed']));
      expect(dead.items.some((d) => d.lastError?.includes('newer schema version'))).toBe(true);
    },
  );

  gate.it(
    'a checkpoint over maxStateBytes ends state_too_large naming the node, after one delivery',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const small = new RedisExecutionStore(
        { url: REDIS_URL },
        { prefix: rt.prefix, maxStateBytes: 8 * 1024 },
      );
      const worker = new FlowWorker({
        store: small,
        flows: rt.flows,
        queue: rt.queue,
        registry: rt.registry,
        pollBlockMs: 30,
        logger: silentLogger,
      });
      worker.start();
      try {
        const id = await rt.client.start(
          chain([{ type: 'assignment', id: 'huge', output: "$F.mul('x', 20000)" }]),
          {},
        );
        const state = await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
        expect(state.status).toBe('error');
        expect(state.error).toMatchObject({
          code: 'state_too_large',
          node: 'huge',
          retryable: false,
        });
        expect(state.context.$NODE ?? {}).not.toHaveProperty('huge'); // the last good checkpoint is kept
        await expect
          .poll(() => rt!.queue.stats(), { timeout: 5000 })
          .toMatchObject({ ready: 0, inFlight: 0, deadLetters: 0 });
      } finally {
        await worker.stop();
        await small.close();
      }
    },
  );

  gate.it(
    'a pinned flow definition missing from the flow store ends flow_definition_missing',
    async () => {
      rt = redisRuntime(REDIS_URL);
      rt.worker();
      const state = newExecutionState({
        executionId: 'orphan',
        flowId: 'gone',
        flowHash: 'f'.repeat(64),
        status: 'queued',
        context: { $INPUT: {} },
      });
      await rt.store.save(state);
      await rt.queue.enqueue({ v: 1, kind: 'run', executionId: 'orphan', tenantId: 'default' });
      const ended = await rt.client.waitFor('orphan', { timeoutMs: 10_000, until: 'terminal' });
      expect(ended.status).toBe('error');
      expect(ended.error?.code).toBe('flow_definition_missing');
      await expect
        .poll(() => rt!.queue.stats(), { timeout: 5000 })
        .toMatchObject({ ready: 0, inFlight: 0, deadLetters: 0 });
    },
  );

  gate.it('an unknown execution is dead-lettered as unknown_execution', async () => {
    rt = redisRuntime(REDIS_URL);
    rt.worker();
    await rt.queue.enqueue({ v: 1, kind: 'run', executionId: 'ghost', tenantId: 'default' });
    await expect
      .poll(async () => (await rt!.queue.listDeadLetters()).items.map((d) => d.reason), {
        timeout: 5000,
      })
      .toEqual(['unknown_execution']);
  });

  gate.it(
    'lease conflict: two deliveries of one execution at once → one completion, every node once',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const id = await rt.client.start(
        chain([
          { type: 'sleep', id: 'a', ms: 50 },
          { type: 'sleep', id: 'b', ms: 50 },
        ]),
        {},
      );
      for (let i = 0; i < 3; i++)
        await rt.queue.enqueue({ v: 1, kind: 'run', executionId: id, tenantId: 'default' });
      rt.worker({ concurrency: 8 });
      rt.worker({ concurrency: 8 });
      const state = await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
      expect(state.status).toBe('completed');
      await new Promise((r) => setTimeout(r, 500)); // let the duplicates drain
      expect([await rt.runs(id, 'a'), await rt.runs(id, 'b')]).toEqual([1, 1]);
      await expect
        .poll(() => rt!.queue.stats(), { timeout: 5000 })
        .toMatchObject({ ready: 0, inFlight: 0, deadLetters: 0 });
      expect((await rt.client.get(id))?.version).toBe(state.version); // no duplicate end
    },
  );

  gate.it(
    'events: before the suspend (kept), a repeated id (applied once), after completion (rejected)',
    async () => {
      rt = redisRuntime(REDIS_URL);
      const flow = chain([
        { type: 'sleep', id: 'slow', ms: 300 },
        { type: 'event', id: 'wait', event_type: 'go' },
      ]);
      rt.worker();
      const id = await rt.client.start(flow, {});
      await rt.client.sendEvent(id, { type: 'go', data: { n: 1 }, eventId: 'e1' });
      await rt.client.sendEvent(id, { type: 'go', data: { n: 1 }, eventId: 'e1' }); // a redelivered duplicate
      const state = await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
      expect(state.status).toBe('completed');
      expect(
        (state.result as { wait: { event_data: { event_data: unknown; event_id: string } } }).wait
          .event_data,
      ).toMatchObject({ event_id: 'e1', event_data: { n: 1 } });
      expect(state.appliedEventIds).toEqual(['e1']);
      expect(state.inbox).toEqual([]); // the duplicate was not kept either
      await expect(rt.client.sendEvent(id, { type: 'go', data: {} })).rejects.toBeInstanceOf(
        ExecutionTerminalError,
      );
    },
  );

  gate.it(
    'cancel of a suspended execution, and of a running one whose node signal fires',
    async () => {
      rt = redisRuntime(REDIS_URL);
      rt.worker();
      const waiting = await rt.client.start(
        chain([{ type: 'event', id: 'wait', event_type: 'never' }]),
        {},
      );
      expect((await rt.client.waitFor(waiting, { timeoutMs: 10_000 })).status).toBe('suspended');
      await rt.client.cancel(waiting);
      expect(
        (await rt.client.waitFor(waiting, { timeoutMs: 10_000, until: 'terminal' })).status,
      ).toBe('cancelled');

      const running = await rt.client.start(chain([{ type: 'sleep', id: 'long', ms: 60_000 }]), {});
      await expect
        .poll(async () => (await rt!.client.get(running))?.status, { timeout: 5000 })
        .toBe('running');
      const started = Date.now();
      await rt.client.cancel(running);
      const state = await rt.client.waitFor(running, { timeoutMs: 10_000, until: 'terminal' });
      expect(state.status).toBe('cancelled');
      expect(Date.now() - started).toBeLessThan(5000);
    },
  );

  gate.it('a delay node fires its timer exactly once', async () => {
    rt = redisRuntime(REDIS_URL);
    rt.worker();
    rt.worker();
    const id = await rt.client.start(
      chain([
        { type: 'delay', id: 'd', delay_seconds: 0.3 },
        { type: 'sleep', id: 'after', ms: 1 },
      ]),
      {},
    );
    expect((await rt.client.waitFor(id, { timeoutMs: 10_000 })).status).toBe('suspended');
    const state = await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    expect(state.status).toBe('completed');
    expect(await rt.runs(id, 'after')).toBe(1);
  });

  gate.it('retry of an error execution is bounded', async () => {
    rt = redisRuntime(REDIS_URL);
    rt.worker();
    const id = await rt.client.start(
      chain([{ type: 'assignment', id: 'bad', output: '$F.div(1, 0)' }]),
      {},
    );
    expect((await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' })).status).toBe(
      'error',
    );
    for (let i = 1; i <= 3; i++) {
      await rt.client.retry(id);
      await expect
        .poll(async () => (await rt!.client.get(id))?.manualRetries, { timeout: 5000 })
        .toBe(i);
      await rt.client.waitFor(id, { timeoutMs: 10_000, until: 'terminal' });
    }
    await expect(rt.client.retry(id)).rejects.toMatchObject({ code: 'invalid_transition' });
  });
});
