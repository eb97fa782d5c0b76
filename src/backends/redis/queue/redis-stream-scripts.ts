import { RedisScript } from '../redis-script.js';

/** Every Lua script of the queue: one per atomic transition, `<name>.lua` beside this module. */
const here = new URL('./', import.meta.url);
const script = (name: string): RedisScript => new RedisScript(name, 'variadic', here);
export const SCRIPTS = {
  ack: script('ack'),
  addTasks: script('add-tasks'),
  renew: script('renew'),
  claimExpired: script('claim-expired'),
  deadLetter: script('dead-letter'),
  replayDeadLetter: script('replay-dead-letter'),
  scheduleDelayed: script('schedule-delayed'),
  promoteDue: script('promote-due'),
  cancelDelayed: script('cancel-delayed'),
  purgeDeadLetters: script('purge-dead-letters'),
  stats: script('stats'),
  hasNew: script('has-new'),
  pruneConsumers: script('prune-consumers'),
} as const;
