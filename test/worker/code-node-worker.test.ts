import { afterEach, expect } from 'vitest';
import { REDIS_URL, redisGate } from '../support/services.js';
import { chain, redisRuntime } from './support/redis-runtime.js';

/**
 * A code node on the durable worker is an ordinary node: a run that keeps timing out follows
 * the node's error policy (retries, then `continue-with`), and without one the execution ends
 * in `error` with the typed `code_timeout` — never stuck `running`, never retried by redelivery.
 */
const gate = await redisGate();
let rt: ReturnType<typeof redisRuntime> | undefined;
afterEach(async () => {
  await rt?.close();
  rt = undefined;
});

const spin = { type: 'code', id: 'calc', code: 'function run() { while (true) {} }' };

gate.describe('code node on the worker', () => {
  gate.it(
    'keeps timing out through its retries, then its errorHandler continues with the default value',
    async () => {
      rt = redisRuntime(REDIS_URL);
      rt.worker({ engine: { limits: { codeTimeoutMs: 100 } } });
      const id = await rt.client.start(
        chain([
          {
            ...spin,
            errorHandler: { retryTimes: 2, strategy: 'continue-with', defaultValue: 'gave up' },
          },
        ]),
        {},
      );
      const done = await rt.client.waitFor(id, { timeoutMs: 20_000, until: 'terminal' });
      expect(done.status).toBe('completed');
      expect((done.context.$NODE as Record<string, unknown>).calc).toBe('gave up');
    },
  );

  gate.it('without a policy the execution ends in error, typed code_timeout', async () => {
    rt = redisRuntime(REDIS_URL);
    rt.worker({ engine: { limits: { codeTimeoutMs: 100 } } });
    const id = await rt.client.start(chain([spin]), {});
    const done = await rt.client.waitFor(id, { timeoutMs: 20_000, until: 'terminal' });
    expect(done.status).toBe('error');
    expect(done.error).toMatchObject({ node: 'calc', details: { type: 'code_timeout' } });
  });
});
