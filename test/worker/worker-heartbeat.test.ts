import { describe, expect, it } from 'vitest';
import type { ControlStore } from '../../src/store/control-store.js';
import { MemoryControlStore } from '../../src/store/memory/memory-control-store.js';
import { silentLogger } from '../../src/util/logger.js';
import { WorkerHeartbeat } from '../../src/worker/worker-heartbeat.js';

describe('a worker heartbeat', () => {
  it('stopped while a beat is being written, is not listed again afterwards', async () => {
    const real = new MemoryControlStore();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real store, its write answered late (a slow network): the beat lands after stop began.
    const control = new Proxy(real, {
      get(target, property) {
        if (property === 'put')
          return async (...args: Parameters<ControlStore['put']>) => {
            await held;
            return target.put(...args);
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
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
