import { randomUUID } from 'node:crypto';
import type { PlaitaClient } from '../client/plaita-client.js';
import { parseFlow } from '../engine/parse-flow.js';
import { rerunContext, type RerunPlan } from '../engine/rerun-context.js';
import { pinnedFlow } from './replay-execution.js';
import { classifyReplay } from '../flow/analysis/replayability.js';
import type { Flow } from '../flow/flow.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { ExecutionState } from '../state/execution-state.js';
import type { ControlStore } from '../store/control-store.js';
import type { FlowStore, StoredFlow } from '../store/flow-store.js';
import { silentLogger } from '../util/logger.js';

export interface RerunServices {
  flows: FlowStore;
  control: ControlStore;
  client: PlaitaClient;
  /** The node types the pinned flow is loaded with (default: the built-in ones). */
  registry?: NodeRegistry | undefined;
}

/** What is asked of a rerun (docs/http-api.md §4 rerun). */
export interface RerunAsk {
  fromNode: string;
  input?: Record<string, unknown> | undefined;
  results?: Record<string, unknown> | undefined;
}

/** A node a rerun runs again; effectful ones act on the world again (replayability.ts). */
export interface RerunNode {
  nodeId: string;
  type: string;
  effectful: boolean;
}

/**
 * A new execution of the definition `original` pinned (by hash), keeping the results of the
 * nodes that ran before `fromNode` and running from it (engine/rerun-context.ts). The new
 * execution records what it reruns and from where, as a replay does (replay-execution.ts).
 * Refusals: ConflictError when the definition is gone, RerunRefusedError for the request.
 */
export async function rerunExecution(
  services: RerunServices,
  original: ExecutionState,
  ask: RerunAsk,
  executionId: string = randomUUID(),
): Promise<string> {
  const { stored, plan } = await planFor(services, original, ask, executionId);
  // Recorded first: the new execution's view names what it reruns from its first read.
  await services.control.put(
    { collection: 'execution_meta', tenant: original.tenantId, id: executionId },
    { rerunOf: original.executionId, fromNode: ask.fromNode },
  );
  await services.client.startFromContext(stored, plan.context, {
    executionId,
    tenantId: original.tenantId,
  });
  return executionId;
}

/** What a rerun would run again, in the order the original ran it; refused as the rerun would be. */
export async function rerunDryRun(
  services: RerunServices,
  original: ExecutionState,
  ask: RerunAsk,
): Promise<RerunNode[]> {
  const { plan, flow } = await planFor(services, original, ask, 'dry-run');
  const verdicts = classifyReplay(flow);
  return plan.willRun.map((nodeId) => ({
    nodeId,
    type: flow.nodesById.get(nodeId)?.def.type ?? 'unknown',
    effectful: verdicts.get(nodeId)?.replayable !== true,
  }));
}

async function planFor(
  services: RerunServices,
  original: ExecutionState,
  ask: RerunAsk,
  executionId: string,
): Promise<{ stored: StoredFlow; flow: Flow; plan: RerunPlan }> {
  const stored = await pinnedFlow(services.flows, original);
  const flow = parseFlow(stored.document, {
    ...(services.registry ? { registry: services.registry } : {}),
    logger: silentLogger,
  });
  const plan = rerunContext(flow, original, { ...ask, executionId });
  return { stored, flow, plan };
}
