import type { Context } from '../expression/scope.js';
import type { Flow } from '../flow/flow.js';
import { snapshotContext } from './context-snapshot.js';
import type { EngineOptions } from './engine-options.js';
import type { Execution } from './execution.js';
import { resumeError } from './flow-failures.js';
import { restoredExecution } from './start-execution.js';

/** The keys a checkpoint carries (docs/flow-format.md §6.6); `$FLOW` is our alias of `$FLOW_ID`. */
const KNOWN_KEYS = new Set([
  '$EXECUTION_ID',
  '$ENV',
  '$INPUT',
  '$PARENT',
  '$GLOBAL',
  'EXPRESS_PREFIX',
  '$FLOW_ID',
  '$FLOW',
  '$NODE',
  '$LAST_NODE',
  '$BRANCH',
  '$VISITS',
]);

/**
 * Restores a checkpoint without copying it deeply: the execution works on a copy-on-write
 * view, so the caller's object is never changed. A checkpoint written by the original engine,
 * without `$VISITS`, is accepted (all counts start at 0).
 */
export function restoreCheckpoint(
  flow: Flow,
  checkpoint: Context,
  options: EngineOptions | undefined,
): Execution {
  if (typeof checkpoint !== 'object' || checkpoint === null || Array.isArray(checkpoint)) {
    throw resumeError('the checkpoint must be an object', null);
  }
  const node = checkpoint.$NODE;
  if (typeof node !== 'object' || node === null || Array.isArray(node))
    throw resumeError('the checkpoint has no $NODE map', null);
  if (typeof checkpoint.$EXECUTION_ID !== 'string')
    throw resumeError('the checkpoint has no $EXECUTION_ID', null);
  const context = snapshotContext(checkpoint);
  context.$VISITS ??= {};
  context.$LAST_NODE ??= null;
  context.$BRANCH ??= null;
  if (!('$FLOW' in context)) context.$FLOW = context.$FLOW_ID ?? flow.id;
  const execution = restoredExecution(flow, context, options);
  execution.markShared();
  for (const key of Object.keys(checkpoint)) {
    if (key.startsWith('$') && !KNOWN_KEYS.has(key))
      execution.warn(`the checkpoint has an unknown key '${key}'; kept as is`);
  }
  return execution;
}
