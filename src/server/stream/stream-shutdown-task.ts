import type { ApiServices } from '../api-services.js';

/**
 * The server task that owns the execution streams' lifetime: nothing runs in the background
 * (each watched execution polls only while someone views it); `stop` (SIGTERM) ends every
 * open stream with its final `shutdown` event before the HTTP server closes.
 */
export function streamShutdownTask(services: ApiServices): { stop(): Promise<void> } {
  return { stop: () => services.streams.close() };
}
