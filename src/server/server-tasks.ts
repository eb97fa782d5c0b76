import type { Logger } from '../util/logger.js';
import type { ApiServices } from './api-services.js';
import { bulkTask } from './bulk/bulk-task.js';
import { drainTask } from './draining.js';
import { reaperTask } from './reaper-task.js';
import { schedulerTask } from './schedules/scheduler-task.js';
import { streamShutdownTask } from './stream/stream-shutdown-task.js';

/** A background loop of the server (schedules, bulk operations, the reaper, heartbeats). */
export interface ServerTask {
  stop(): Promise<void>;
}

export type ServerTaskFactory = (services: ApiServices, options: { log: Logger }) => ServerTask;

/** Every background task `plaita serve` runs beside the HTTP API; each stops on SIGTERM. */
export const SERVER_TASKS: ServerTaskFactory[] = [
  drainTask,
  streamShutdownTask,
  schedulerTask,
  bulkTask,
  reaperTask,
];

export function startServerTasks(services: ApiServices, options: { log: Logger }): ServerTask {
  const tasks = SERVER_TASKS.map((factory) => factory(services, options));
  return {
    stop: async () => {
      await Promise.all(tasks.map((task) => task.stop()));
    },
  };
}
