import { getOwn } from '../util/own-record.js';
import type { Context } from '../expression/scope.js';
import type { Flow, LoadedNode } from '../flow/flow.js';
import type { ResumeType } from '../flow/node-type.js';
import { FlowError } from '../errors/flow-errors.js';
import { defaultFunctions } from '../expression/function-registry.js';
import type { EngineOptions } from './engine-options.js';
import type { Execution } from './execution.js';
import { flatten, resumeError } from './flow-failures.js';
import { hookError } from './hooks.js';
import { restoreCheckpoint } from './checkpoint.js';
import { entryNode, settleFailure } from './run-loop.js';
import { runNode } from './run-node.js';
import type { ResumeKind, StepOutcome, StepRequest } from './run-step.js';
import { newTopLevelExecution } from './start-execution.js';
import { makeStep, syntheticEndStep } from './step.js';
import { successor, targetOf } from './successor.js';
import { resumeNode, suspendNode, pendingSuspension } from './suspension.js';
import { toFlow, type FlowSource } from './to-flow.js';

const RESUME_KINDS: ReadonlySet<string> = new Set([
  'continue',
  'retry',
  'event',
  'timeout',
  'cancel',
]);

type Outcome = DistributiveOmit<StepOutcome, 'changedNodes' | 'nextNodeId'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * One execution in distributed mode (docs/flow-format.md §6.5), kept alive across the steps a
 * host runs in a row: restored from its checkpoint (or started) once, then each `step` runs
 * exactly one node on the live execution — what `runStep` does from a checkpoint, without
 * restoring it every time. Each outcome says which node the next `step` runs (`nextNodeId`),
 * so a host never re-derives the walk. After a failed step the stepper starts again from the
 * last good checkpoint. `dispose` when done.
 */
export class Stepper {
  readonly flow: Flow;
  #execution: Execution | undefined;
  /** The checkpoint the live execution stands on (what a failed step falls back to). */
  #checkpoint: Context | null;
  #fresh: boolean;
  readonly #request: StepRequest;
  readonly #options: EngineOptions | undefined;

  constructor(source: FlowSource, request: StepRequest = {}, options?: EngineOptions) {
    this.flow = toFlow(source, options);
    this.#request = request;
    this.#options = options;
    this.#checkpoint = request.checkpoint ?? null;
    this.#fresh = !request.checkpoint;
  }

  /**
   * The node the next `continue` step runs (the first call: the entry node's successor), or
   * null when none would (an end node was last, or no branch matched).
   */
  get nextNodeId(): string | null {
    return nextFrom(this.flow, this.#checkpoint);
  }

  /**
   * The next step is a fresh execution's first and runs no host code (NodeType.inert): its
   * node is inert and retries nothing, every `$F` function is a built-in, and no engine hook
   * is set (hooks are host code, and they fire in that step). A host need not make the
   * execution's start durable before such a step.
   */
  get firstStepIsInert(): boolean {
    const nodeId = this.#fresh ? this.nextNodeId : null;
    const node = nodeId === null ? undefined : this.flow.nodesById.get(nodeId);
    if (node?.nodeType.inert !== true || node.def.errorHandler.retryTimes > 0) return false;
    const hooks = this.#options?.hooks;
    if (hooks !== undefined && (!Array.isArray(hooks) || hooks.length > 0)) return false;
    return (this.#options?.functions ?? defaultFunctions).onlyBuiltins();
  }

  async step(resume: { type: ResumeKind; data?: unknown } | null = null): Promise<StepOutcome> {
    const resumeType = resume?.type ?? 'continue';
    let execution: Execution | undefined;
    try {
      if (!RESUME_KINDS.has(resumeType))
        throw resumeError(`unsupported resume type '${String(resumeType)}'`, null);
      if (this.#fresh && resumeType !== 'continue')
        throw resumeError(`resume type '${resumeType}' needs a checkpoint`, null);
      execution = this.#live();
      const outcome =
        resumeType === 'event' || resumeType === 'timeout' || resumeType === 'cancel'
          ? await resumeStep(execution, resumeType, resume?.data)
          : await advanceStep(execution, this.#fresh);
      this.#fresh = false;
      this.#checkpoint = outcome.context;
      const changedNodes = execution.takeChanges();
      const nextNodeId =
        outcome.status === 'advanced' ? nextFrom(this.flow, outcome.context) : null;
      return { ...outcome, changedNodes, nextNodeId } as StepOutcome;
    } catch (error) {
      const failure = flatten(asFailure(execution, error));
      if (execution) await execution.fire('onFlowEnd', { error: hookError(failure) });
      // The live execution may be half-way through the failed node: drop it.
      this.dispose();
      return { status: 'failed', step: null, context: this.#checkpoint, error: failure };
    }
  }

  dispose(): void {
    this.#execution?.budget.dispose();
    this.#execution = undefined;
  }

  #live(): Execution {
    this.#execution ??= this.#checkpoint
      ? restoreCheckpoint(this.flow, this.#checkpoint, this.#options)
      : newTopLevelExecution(
          this.flow,
          this.#request.input,
          {
            ...this.#options,
            ...(this.#request.executionId ? { executionId: this.#request.executionId } : {}),
          },
          'distributed',
        );
    return this.#execution;
  }
}

/** Which node a `continue` step from `checkpoint` runs: the one rule, beside the walk's own. */
function nextFrom(flow: Flow, checkpoint: Context | null): string | null {
  const lastId = checkpoint?.$LAST_NODE;
  if (typeof lastId !== 'string') {
    const start = flow.startNode;
    return start ? targetOf(start, null) : null;
  }
  const last = flow.nodesById.get(lastId);
  if (!last || last.def.type === 'end') return null;
  const nodes = checkpoint?.$NODE as Record<string, unknown> | undefined;
  return targetOf(
    last,
    last.nodeType.branching ? checkpoint?.$BRANCH : ((nodes && getOwn(nodes, lastId)) ?? null),
  );
}

function asFailure(execution: Execution | undefined, error: unknown): FlowError {
  const settled = execution ? settleFailure(execution, error) : error;
  return settled instanceof FlowError ? settled : flatten(resumeError(String(settled), null));
}

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
