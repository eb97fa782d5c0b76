import { describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { MemoryControlStore } from '../../src/backends/memory/memory-control-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { WorkerHeartbeat } from '../../src/worker/worker-heartbeat.js';
import { FlowWorker } from '../../src/worker/flow-worker.js';
import { memoryBackends } from '../server/support/api-harness.js';

describe('a worker heartbeat', () => {
  it('stopped while a beat is being written, is not listed again afterwards', async () => {
    const real = new MemoryControlStore();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real store, its write answered late (a slow network): the beat lands after stop began.
    const control = overriding(real, 'put', (put) => async (...args) => {
      await held;
      return put(...args);
    });
    const heartbeat = new WorkerHeartbeat(
      control,
      { workerId: 'w-slow', concurrency: 1, inFlightCount: 0 },
      { version: 'test', log: silentLogger, intervalMs: 60_000 },
    ).start();
    const stopping = heartbeat.stop();
    release();
    await stopping;
    expect(await real.get({ collection: 'workers', tenant: '*', id: 'w-slow' })).toBeNull();
  });

  it('names no host or pid in its id: every tenant sees the id, only platform keys the host', async () => {
    const backends = memoryBackends();
    try {
      const worker = new FlowWorker({ ...backends, logger: silentLogger, metrics: null });
      // A random UUID and nothing else: no host name, no pid.
      expect(worker.workerId).toMatch(/^w-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/);
      expect(worker.workerId).not.toBe(
        new FlowWorker({ ...backends, logger: silentLogger, metrics: null }).workerId,
      );
    } finally {
      await backends.close?.();
    }
  });
});
