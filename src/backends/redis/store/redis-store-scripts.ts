import { RedisScript } from '../redis-script.js';

const HERE = new URL('./', import.meta.url);

/** Every script of the Redis stores, by name (each is `<name>.lua` beside this module). */
export const SCRIPTS = {
  saveStates: new RedisScript('save-states', 'variadic', HERE, [
    'run-batch',
    'index-entry',
    'save-state',
  ]),
  loadState: new RedisScript('load-state', 2, HERE),
  deleteExecution: new RedisScript('delete-execution', 2, HERE),
  acquireLease: new RedisScript('acquire-lease', 1, HERE),
  claimExecutions: new RedisScript('claim-executions', 'variadic', HERE, [
    'run-batch',
    'claim-execution',
  ]),
  renewLease: new RedisScript('renew-lease', 1, HERE),
  releaseLeases: new RedisScript('release-leases', 'variadic', HERE, [
    'run-batch',
    'release-lease',
  ]),
  getLease: new RedisScript('get-lease', 1, HERE),
  requestCancel: new RedisScript('request-cancel', 1, HERE),
  sweepExecution: new RedisScript('sweep-execution', 2, HERE),
  listPage: new RedisScript('list-page', 'variadic', HERE),
  indexEntries: new RedisScript('index-entries', 'variadic', HERE, ['index-entry']),
  putFlow: new RedisScript('put-flow', 'variadic', HERE),
} as const;
