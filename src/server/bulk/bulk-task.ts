import type { ServerTaskFactory } from '../server-tasks.js';
import { BulkRunner } from '../../control/bulk/bulk-runner.js';

/** `plaita serve` works through bulk operations in the background. */
export const bulkTask: ServerTaskFactory = (services, { log }) =>
  new BulkRunner(services, { log }).start();
