import { ReaperLoop } from '../worker/reaper-loop.js';
import type { ServerTaskFactory } from './server-tasks.js';

/** `plaita serve` reaps stale executions too (one pass per interval across every process). */
export const reaperTask: ServerTaskFactory = (services, { log }) =>
  new ReaperLoop(services, { log }).start();
