import type { ApiServices } from '../api-services.js';
import { viewOf } from '../execution-reads.js';
import { StreamHub, type StreamHubOptions } from './stream-hub.js';

const hubs = new WeakMap<ApiServices, StreamHub>();

/**
 * The stream hub of one app (made on first use, one per `ApiServices`): the stream route opens
 * streams on it, the server task closes it on shutdown. `tuning` applies only when it is made.
 */
export function streamHubOf(
  services: ApiServices,
  tuning: Partial<
    Pick<StreamHubOptions, 'minPollMs' | 'maxPollMs' | 'keepAliveMs' | 'closeTimeoutMs'>
  > = {},
): StreamHub {
  let hub = hubs.get(services);
  if (!hub) {
    hub = new StreamHub({
      load: (tenantId, executionId) => services.store.load(executionId, { tenantId }),
      // The view of the very state the stream read (its version is the event id): a newer one
      // is the stream's next update.
      render: async (state) =>
        JSON.stringify(await viewOf(services, state, { readAgainIfReleased: false })),
      log: services.log.child({ component: 'execution-stream' }),
      ...tuning,
    });
    hubs.set(services, hub);
  }
  return hub;
}
