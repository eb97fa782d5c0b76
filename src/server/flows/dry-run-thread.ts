import { workerData } from 'node:worker_threads';
import { parseFlow } from '../../engine/parse-flow.js';
import type { RuntimeLimits } from '../../flow/runtime-limits.js';
import { defaultRegistry } from '../../nodes/default-registry.js';
import { loadNodeModules } from '../../nodes/plugin-modules.js';
import { silentLogger } from '../../util/logger.js';
import { serveThreadTasks } from '../../util/thread-task.js';
import { dryRun } from './dry-run.js';
import type { DryRunMessage, ThreadSetup } from './dry-run-threads.js';

/**
 * The entry of a dry-run thread (dry-run-threads.ts): the server's node types (the same plugin
 * modules) and limits, code nodes run in place (this thread is already off the server's loop),
 * and a `reference` node's flow read through the server.
 */
const setup = workerData as ThreadSetup;
const limits: Partial<RuntimeLimits> = { ...setup.limits, codeThreads: 0 };
const registry = defaultRegistry.withLimits(limits);
const loaded = loadNodeModules(registry, [...setup.nodeModules], { logger: silentLogger });

serveThreadTasks(async (message, call) => {
  await loaded;
  const { request, tenantId, timeoutMs } = message as DryRunMessage;
  return dryRun(request, {
    registry,
    limits,
    env: {},
    tenantId,
    timeoutMs,
    logger: silentLogger,
    resolveFlow: async (flowId, version) => {
      const document = (await call({ flowId, version })) as Record<string, unknown> | null;
      return document === null ? null : parseFlow(document, { registry, logger: silentLogger });
    },
  });
});
