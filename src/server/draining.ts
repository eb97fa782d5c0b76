import { setMaxListeners } from 'node:events';
import type { ApiServices } from './api-services.js';
import type { ServerTask } from './server-tasks.js';

const controllers = new WeakMap<ApiServices, AbortController>();

function controllerOf(services: ApiServices): AbortController {
  let controller = controllers.get(services);
  if (!controller) {
    controllers.set(services, (controller = new AbortController()));
    // Every request holding on listens to it for a moment: many at once is no leak.
    setMaxListeners(0, controller.signal);
  }
  return controller;
}

/**
 * Aborted once the server is shutting down: requests that hold on (`?wait=`) answer with what
 * they have now instead of keeping the server's close waiting for the rest of their wait.
 */
export function drainingSignal(services: ApiServices): AbortSignal {
  return controllerOf(services).signal;
}

/** The server task that raises {@link drainingSignal} on SIGTERM. */
export function drainTask(services: ApiServices): ServerTask {
  return { stop: () => Promise.resolve(controllerOf(services).abort()) };
}
