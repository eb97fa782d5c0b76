import { SSEStreamingApi } from 'hono/streaming';
import { describe, expect, it, vi } from 'vitest';
import { StreamHub } from '../../src/server/stream/stream-hub.js';
import { newExecutionState, type ExecutionState } from '../../src/state/execution-state.js';
import { silentLogger } from '../../src/util/logger.js';

const running = (): ExecutionState => ({
  ...newExecutionState({ executionId: 'e1' }),
  version: 2,
  status: 'running',
});

/** A hub over one running execution whose view is `size` characters; renders wait for `gate`. */
function hubOf(options: { size?: number; gate?: Promise<void> } = {}) {
  return new StreamHub({
    load: () => Promise.resolve(running()),
    render: async () => {
      await options.gate;
      return JSON.stringify({ pad: 'x'.repeat(options.size ?? 10) });
    },
    log: silentLogger,
    minPollMs: 10,
    maxPollMs: 20,
    keepAliveMs: 50,
    closeTimeoutMs: 200,
  });
}

/** A real SSE stream whose reading side nobody reads: a viewer that stopped reading. */
function unreadStream(): SSEStreamingApi {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  return new SSEStreamingApi(writable, readable);
}

describe('StreamHub lifecycle', () => {
  it('a stream opened while the hub closes is refused, not left open without its final event', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const hub = hubOf({ gate });
    const opening = hub.open(running());
    await new Promise((resolve) => setTimeout(resolve, 10)); // the view is being made
    const closing = hub.close();
    release();
    await expect(opening).rejects.toMatchObject({ code: 'service_unavailable' });
    await closing;
    expect(hub.openStreams).toBe(0);
    expect(hub.watchedExecutions).toBe(0);
  });

  it('a viewer that stops reading is dropped: its watch released, its connection closed', async () => {
    const hub = hubOf({ size: 200_000 });
    const drop = vi.fn();
    const session = await hub.open(running(), { drop });
    const never = new AbortController().signal;
    const ran = session.run(unreadStream(), null, never);
    expect(hub.openStreams).toBe(1);
    // The snapshot does not fit the stream's buffer: the write waits; keep-alives pile up.
    await vi.waitFor(() => expect(drop).toHaveBeenCalled(), { timeout: 2000 });
    await ran;
    expect(hub.openStreams).toBe(0);
    expect(hub.watchedExecutions).toBe(0);
  });

  it('a session abandoned before it runs releases its watch', async () => {
    const hub = hubOf();
    const session = await hub.open(running());
    expect(hub.watchedExecutions).toBe(1);
    session.abandon();
    await session.done;
    expect(hub.openStreams).toBe(0);
    expect(hub.watchedExecutions).toBe(0);
  });
});
