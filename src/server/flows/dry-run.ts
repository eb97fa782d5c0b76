import { randomUUID } from 'node:crypto';
import { parseFlow } from '../../engine/parse-flow.js';
import type { Step } from '../../engine/step.js';
import { stepFlow } from '../../engine/step-flow.js';
import type { Flow } from '../../flow/flow.js';
import { FlowError } from '../../errors/flow-errors.js';
import type { ResolveFlow } from '../../flow/node-type.js';
import type { RuntimeLimits } from '../../flow/runtime-limits.js';
import type { NodeRegistry } from '../../nodes/node-registry.js';
import type { Logger } from '../../util/logger.js';
import { silentLogger } from '../../util/logger.js';
import type { ErrorView } from '../execution-view.js';
import { ApiProblem } from '../problem.js';
import { DryRunTrace, outputView, type TraceEntry } from './dry-run-trace.js';
import type { FlowDocument } from './flow-document.js';
import { pinningRegistry } from './pinning-registry.js';

export interface DryRunRequest {
  document: FlowDocument;
  input: Record<string, unknown>;
  pinned: Record<string, unknown>;
  onlyNode: string | null;
}

/** What the server runs a dry-run with: its registry and limits, the caller's tenant. */
export interface DryRunHost {
  registry: NodeRegistry;
  limits: Partial<RuntimeLimits>;
  tenantId: string;
  /** `reference` nodes: the tenant's published flows (read only). */
  resolveFlow: ResolveFlow;
  /** `$ENV` of the run (the names its `exposeEnv` lists are read from it). */
  env: Record<string, string | undefined>;
  /** The request's: a client that goes away cancels the run. */
  signal?: AbortSignal;
  /** The run's budget (the flow's own `timeout` applies when smaller). */
  timeoutMs: number;
  logger: Logger;
}

interface Traced {
  trace: TraceEntry[];
  truncated?: true;
}

/**
 * HTTP 200 either way: the dry-run itself worked. `error` is how the flow failed (the engine's
 * FlowError: `code`, `type`, `nodeId`, `message`, as an execution's); `waiting` is the suspending
 * node it stopped at.
 */
export type DryRunOutcome = Traced &
  (
    | { status: 'completed'; result: unknown }
    | { status: 'error'; error: ErrorView }
    | { status: 'waiting'; waiting: { nodeId: string; eventType: string } }
  );

/**
 * Runs a flow in process and stores nothing (docs/http-api.md §4 `POST /v1/flows/dry-run`): the engine's
 * step mode, so a suspending node does not wait — the walk stops there with `waiting`. Pinned
 * nodes give their output without running. `onlyNode` runs that node alone, right after the
 * start node, against the input and the pinned outputs. The host's limits apply (private
 * networks denied unless the server allows them), and a budget so it can never hang.
 */
export async function dryRun(request: DryRunRequest, host: DryRunHost): Promise<DryRunOutcome> {
  const executionId = `dry-run-${randomUUID()}`;
  const registry = pinningRegistry(
    host.registry,
    { pinned: request.pinned, executionId, seedAtStart: request.onlyNode !== null },
    host.limits,
  );
  const flow = loadFor(request, registry);
  const trace = new DryRunTrace(request.pinned);
  const traced = (): Traced => ({
    trace: request.onlyNode === null ? trace.entries : only(trace.entries, request.onlyNode),
    ...(trace.truncated ? { truncated: true as const } : {}),
  });
  const steps = stepFlow(flow, request.input, {
    executionId,
    tenantId: host.tenantId,
    limits: host.limits,
    env: host.env,
    timeout: host.timeoutMs,
    hooks: trace,
    resolveFlow: host.resolveFlow,
    logger: host.logger,
    ...(host.signal ? { signal: host.signal } : {}),
  });
  try {
    for await (const step of steps) {
      if (request.onlyNode !== null && step.nodeId !== request.onlyNode) continue;
      // Leaving the loop closes the walk (docs/flow-format.md §6.4): nothing after this node runs.
      if (suspends(step, registry, request.pinned)) {
        trace.markWaiting(step.nodeId!);
        return { status: 'waiting', waiting: waitingOf(step), ...traced() };
      }
      if (step.isEnd || request.onlyNode !== null)
        return { status: 'completed', result: outputView(step.result), ...traced() };
    }
    return { status: 'completed', result: null, ...traced() };
  } catch (error) {
    if (!(error instanceof FlowError)) throw error;
    return { status: 'error', error: errorView(error), ...traced() };
  }
}

/**
 * What a dry-run of `request` would load, without running it: the same 4xx problems
 * (dry-run-threads.ts checks here before a thread runs it, so a bad request is answered as
 * before).
 */
export function checkDryRun(
  request: DryRunRequest,
  host: Pick<DryRunHost, 'registry' | 'limits'>,
): void {
  const registry = pinningRegistry(
    host.registry,
    {
      pinned: request.pinned,
      executionId: 'dry-run-check',
      seedAtStart: request.onlyNode !== null,
    },
    host.limits,
  );
  loadFor(request, registry);
}

/**
 * Loads the document (422 when it does not load) and checks the request against it; for
 * `onlyNode` the start node leads straight to that node.
 */
function loadFor(request: DryRunRequest, registry: NodeRegistry): Flow {
  const parse = (document: FlowDocument) => parseFlow(document, { registry, logger: silentLogger });
  const flow = parse(request.document);
  const unknown = Object.keys(request.pinned).filter((id) => !flow.nodesById.has(id));
  if (unknown.length > 0)
    throw new ApiProblem('invalid_request', `pinned names nodes the flow does not have`, {
      errors: unknown.map((id) => ({ path: `body.pinned.${id}`, message: 'no node has this id' })),
    });
  const { onlyNode } = request;
  if (onlyNode === null || onlyNode === flow.startNode?.def.id) return flow;
  if (!flow.nodesById.has(onlyNode))
    throw new ApiProblem('invalid_request', `the flow has no node '${onlyNode}'`, {
      errors: [{ path: 'body.onlyNode', message: 'no node has this id' }],
    });
  if (!flow.startNode)
    throw new ApiProblem('invalid_request', 'onlyNode needs a flow with a start node', {
      errors: [{ path: 'body.onlyNode', message: 'the flow has no start node' }],
    });
  return parse(startingAt(request.document, onlyNode));
}

/** The document whose (first) start node's `next` is `nodeId`. */
function startingAt(document: FlowDocument, nodeId: string): FlowDocument {
  const nodes = document.nodes as unknown[];
  const index = nodes.findIndex((node) => (node as { type?: unknown }).type === 'start');
  const copy = [...nodes];
  copy[index] = { ...(nodes[index] as Record<string, unknown>), next: nodeId };
  return { ...document, nodes: copy };
}

function suspends(step: Step, registry: NodeRegistry, pinned: Record<string, unknown>): boolean {
  if (step.nodeId === null || Object.hasOwn(pinned, step.nodeId)) return false;
  return step.type !== null && registry.get(step.type)?.suspending === true;
}

/** The pending state of docs/flow-format.md §3.17 names the event the node would wait for. */
function waitingOf(step: Step): { nodeId: string; eventType: string } {
  const state = step.result as { event_type?: unknown } | null;
  const eventType = typeof state?.event_type === 'string' ? state.event_type : '';
  return { nodeId: step.nodeId!, eventType };
}

function errorView(error: FlowError): ErrorView {
  return { code: error.code, type: error.type, nodeId: error.node, message: error.message };
}

function only(entries: TraceEntry[], nodeId: string): TraceEntry[] {
  return entries.filter((entry) => entry.nodeId === nodeId);
}
