import { describe, expect, it } from 'vitest';
import { overriding } from '../support/overriding.js';
import { MemoryControlStore } from '../../src/store/memory/memory-control-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { WorkerHeartbeat } from '../../src/worker/worker-heartbeat.js';

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
});
