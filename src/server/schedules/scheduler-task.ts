import type { ServerTaskFactory } from '../server-tasks.js';
import { Scheduler } from '../../control/schedules/scheduler.js';

/** `plaita serve` fires schedules too (workers run the same Scheduler). */
export const schedulerTask: ServerTaskFactory = (services, { log }) =>
  new Scheduler(services, { log }).start();
