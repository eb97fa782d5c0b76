import type { ApiServices } from '../api-services.js';
import { viewOf } from '../execution-reads.js';
import { StreamHub, type StreamHubOptions } from './stream-hub.js';

/** How fast streams poll and keep alive, and how long a close waits (StreamHubOptions). */
export type StreamTuning = Partial<
  Pick<StreamHubOptions, 'minPollMs' | 'maxPollMs' | 'keepAliveMs' | 'closeTimeoutMs'>
>;

/**
 * The stream hub of one app, held by its services (`ApiServices.streams`): the stream route
 * opens streams on it, the server task closes it on shutdown. It reads executions and renders
 * their views through `services`.
 */
export function executionStreamHub(
  services: Pick<ApiServices, 'store' | 'resolver' | 'control' | 'log'>,
  tuning: StreamTuning = {},
): StreamHub {
  return new StreamHub({
    load: (tenantId, executionId) => services.store.load(executionId, { tenantId }),
    // The view of the very state the stream read (its version is the event id): a newer one
    // is the stream's next update.
    render: async (state) =>
      JSON.stringify(await viewOf(services, state, { readAgainIfReleased: false })),
    log: services.log.child({ component: 'execution-stream' }),
    ...tuning,
  });
}
