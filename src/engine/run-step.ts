import { getOwn } from '../util/own-record.js';
import type { Context } from '../expression/scope.js';
import type { Flow, LoadedNode } from '../flow/flow.js';
import type { ResumeType } from '../flow/node-type.js';
import { FlowError } from '../flow-errors.js';
import type { EngineOptions } from './engine-options.js';
import type { Execution } from './execution.js';
import { flatten, resumeError } from './flow-failures.js';
import { hookError } from './hooks.js';
import { restoreCheckpoint } from './checkpoint.js';
import { entryNode, settleFailure } from './run-loop.js';
import { runNode } from './run-node.js';
import { newTopLevelExecution } from './start-execution.js';
import { makeStep, type Step, syntheticEndStep } from './step.js';
import { successor } from './successor.js';
import { resumeNode, suspendNode, type Waiting, pendingSuspension } from './suspension.js';
import { toFlow, type FlowSource } from './to-flow.js';

export type ResumeKind = 'continue' | 'retry' | ResumeType;
const RESUME_KINDS: ReadonlySet<string> = new Set([
  'continue',
  'retry',
  'event',
  'timeout',
  'cancel',
]);

export interface StepRequest {
  /** The top-level input, used when there is no checkpoint yet. */
  input?: unknown;
  /** The previous step's `context`; absent on the first call. */
  checkpoint?: Context | null;
  resume?: { type: ResumeKind; data?: unknown } | null;
  executionId?: string;
}

/**
 * What one distributed step did. `context` is the checkpoint to persist (on failure: the
 * checkpoint the step started from, so the host can re-send it).
 */
export type StepOutcome =
  | ({ status: 'advanced'; step: Step; context: Context } & Changes)
  | ({ status: 'completed'; step: Step; context: Context; result: unknown } & Changes)
  | ({ status: 'suspended'; step: Step; context: Context; waiting: Waiting } & Changes)
  | { status: 'failed'; step: null; context: Context | null; error: FlowError };

interface Changes {
  /**
   * The `$NODE` entries this step wrote — all a store needs to write besides the header — or
   * null when a mutating `$F` function ran and any entry may have changed.
   */
  changedNodes: string[] | null;
}

/**
 * Distributed mode (docs/flow-format.md §6.5): runs exactly one node from a checkpoint (the first call
 * runs `start` plus one node). Pure with respect to storage: the host persists `context`.
 * Every failure is flattened to FlowError -500 `flow_error` with the original as `cause`.
 */
export async function runStep(
  source: FlowSource,
  request: StepRequest = {},
  options?: EngineOptions,
): Promise<StepOutcome> {
  const flow: Flow = toFlow(source, options);
  const resumeType = request.resume?.type ?? 'continue';
  let execution: Execution | undefined;
  try {
    if (!RESUME_KINDS.has(resumeType))
      throw resumeError(`unsupported resume type '${String(resumeType)}'`, null);
    if (!request.checkpoint && resumeType !== 'continue')
      throw resumeError(`resume type '${resumeType}' needs a checkpoint`, null);
    execution = request.checkpoint
      ? restoreCheckpoint(flow, request.checkpoint, options)
      : newTopLevelExecution(
          flow,
          request.input,
          { ...options, ...(request.executionId ? { executionId: request.executionId } : {}) },
          'distributed',
        );
    const outcome =
      resumeType === 'event' || resumeType === 'timeout' || resumeType === 'cancel'
        ? await resumeStep(execution, resumeType, request.resume?.data)
        : await advanceStep(execution, !request.checkpoint);
    return { ...outcome, changedNodes: execution.changedNodes() } as StepOutcome;
  } catch (error) {
    const failure = flatten(asFailure(execution, error));
    if (execution) await execution.fire('onFlowEnd', { error: hookError(failure) });
    return { status: 'failed', step: null, context: request.checkpoint ?? null, error: failure };
  } finally {
    execution?.budget.dispose();
  }
}

function asFailure(execution: Execution | undefined, error: unknown): FlowError {
  const settled = execution ? settleFailure(execution, error) : error;
  return settled instanceof FlowError ? settled : flatten(resumeError(String(settled), null));
}

type Outcome = DistributiveOmit<StepOutcome, 'changedNodes'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

async function resumeStep(execution: Execution, type: ResumeType, data: unknown): Promise<Outcome> {
  const step = await resumeNode(execution, type, data);
  return { status: 'advanced', step, context: step.context };
}

async function advanceStep(execution: Execution, fresh: boolean): Promise<Outcome> {
  const pending = pendingSuspension(execution);
  if (pending)
    throw resumeError(`node '${pending}' is waiting for an event: it cannot be skipped`, pending);
  const node =
    fresh || execution.context.$LAST_NODE === null
      ? await runEntry(execution)
      : nextAfterLast(execution);
  if (node === null) {
    const step = syntheticEndStep(execution);
    return { status: 'completed', step, context: step.context, result: step.result };
  }
  const result = await runNode(execution, node);
  if (node.def.type === 'end') {
    await execution.fire('onFlowEnd', { result });
    const step = makeStep(execution, node, result, { isEnd: true });
    return { status: 'completed', step, context: step.context, result };
  }
  if (node.nodeType.suspending) {
    const { step, waiting } = await suspendNode(execution, node, result);
    return { status: 'suspended', step, context: step.context, waiting };
  }
  const step = makeStep(execution, node, result);
  return { status: 'advanced', step, context: step.context };
}

/** The first call runs `start` (hooks fire, no step is returned for it), then its successor. */
async function runEntry(execution: Execution): Promise<LoadedNode | null> {
  await execution.fire('onFlowStart', {});
  const start = entryNode(execution);
  const result = await runNode(execution, start);
  return resolveNext(execution, start, result);
}

function nextAfterLast(execution: Execution): LoadedNode | null {
  const lastId = execution.context.$LAST_NODE as string;
  const last = execution.flow.nodesById.get(lastId);
  if (!last)
    throw resumeError(`the checkpoint's last node '${lastId}' is not in this flow`, lastId);
  const branch = execution.context.$BRANCH;
  return resolveNext(
    execution,
    last,
    last.nodeType.branching ? branch : (getOwn(execution.nodeResults, lastId) ?? null),
  );
}

function resolveNext(execution: Execution, node: LoadedNode, result: unknown): LoadedNode | null {
  const next = successor(execution, node, result);
  return next.kind === 'node' ? next.node : null;
}
