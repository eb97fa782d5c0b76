import { RedisScript } from '../redis-script.js';

const HERE = new URL('./', import.meta.url);

/** The scripts of the Redis control store, by name (each is `<name>.lua` beside this module). */
export const CONTROL_SCRIPTS = {
  create: new RedisScript('control-create', 2, HERE),
  replace: new RedisScript('control-replace', 2, HERE),
  put: new RedisScript('control-put', 2, HERE),
  delete: new RedisScript('control-delete', 2, HERE),
  take: new RedisScript('control-take', 2, HERE),
  prune: new RedisScript('control-prune', 'variadic', HERE),
  reschedule: new RedisScript('control-reschedule', 1, HERE),
} as const;
