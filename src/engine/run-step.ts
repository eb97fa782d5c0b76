import type { Context } from '../expression/scope.js';
import type { ResumeType } from '../flow/node-type.js';
import type { FlowError } from '../errors/flow-errors.js';
import type { EngineOptions } from './engine-options.js';
import type { Step } from './step.js';
import { Stepper } from './stepper.js';
import type { Waiting } from './suspension.js';
import type { FlowSource } from './to-flow.js';

export type ResumeKind = 'continue' | 'retry' | ResumeType;

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
  | ({ status: 'advanced'; step: Step; context: Context; nextNodeId: string | null } & Changes)
  | ({
      status: 'completed';
      step: Step;
      context: Context;
      result: unknown;
      nextNodeId: null;
    } & Changes)
  | ({
      status: 'suspended';
      step: Step;
      context: Context;
      waiting: Waiting;
      nextNodeId: null;
    } & Changes)
  | { status: 'failed'; step: null; context: Context | null; error: FlowError };

/** `nextNodeId`: the node the next `continue` step runs (null after an end or a suspension). */
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
 * A host running several steps in a row keeps one {@link Stepper} instead.
 */
export async function runStep(
  source: FlowSource,
  request: StepRequest | Context | null = {},
  options?: EngineOptions & Omit<StepRequest, 'checkpoint'>,
): Promise<StepOutcome> {
  const asked = stepRequest(request, options);
  const stepper = new Stepper(source, asked, options);
  try {
    return await stepper.step(asked.resume ?? null);
  } finally {
    stepper.dispose();
  }
}

const REQUEST_KEYS = new Set(['input', 'checkpoint', 'resume', 'executionId']);

/**
 * The contract's form (docs/public-surface.md) `runStep(flow, checkpoint, options?)` beside ours `runStep(flow, request)`:
 * a second argument with any key a request does not have (`$NODE`, `EXPRESS_PREFIX`…) is a
 * checkpoint context, never silently ignored; `input`, `resume` and `executionId` then come
 * from `options`.
 */
function stepRequest(
  given: StepRequest | Context | null,
  options: (EngineOptions & Omit<StepRequest, 'checkpoint'>) | undefined,
): StepRequest {
  const isRequest = given !== null && Object.keys(given).every((key) => REQUEST_KEYS.has(key));
  if (isRequest) return given;
  return {
    checkpoint: given as Context | null,
    ...(options?.input === undefined ? {} : { input: options.input }),
    ...(options?.resume === undefined ? {} : { resume: options.resume }),
    ...(options?.executionId === undefined ? {} : { executionId: options.executionId }),
  };
}
