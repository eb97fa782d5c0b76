import type { LoadedNode } from '../flow/flow.js';
import { FlowError, FlowResultError, nodeFailureType } from '../errors/flow-errors.js';

/** Builders for the FlowError kinds of docs/flow-format.md §7.2, so messages stay consistent. */

export function nodeLabel(node: LoadedNode): string {
  return node.def.name ?? node.def.id;
}

export function nodeExecutionError(
  node: LoadedNode,
  code: number | null,
  message: string | null,
  cause: unknown,
): FlowError {
  const text =
    message ?? `node '${nodeLabel(node)}' failed: ${errorName(cause)}: ${errorMessage(cause)}`;
  return new FlowError({
    code,
    type: nodeFailureType(cause),
    name: 'NodeExecutionError',
    message: text,
    node: node.def.id,
    cause,
  });
}

export function nodeTimeout(
  node: LoadedNode,
  flowBinding: boolean,
  message: string | null,
  budgetMs: number | null,
): FlowError {
  // Names the strategy, as the original does ("timeout handler strategy ... is abort"), and the
  // node's id even when it has a name: the id is what a reader searches the document for.
  const label = node.def.name === null ? `'${node.def.id}'` : `'${node.def.name}' (${node.def.id})`;
  const text =
    message ??
    (flowBinding
      ? `node ${label} ran out of the flow's time budget; its timeoutHandler strategy is abort`
      : `node ${label} timed out after ${budgetMs ?? '?'} ms; its timeoutHandler strategy is abort`);
  return new FlowError({
    code: -1,
    type: flowBinding ? 'flow_error' : 'node_error',
    name: 'NodeTimeout',
    message: text,
    node: node.def.id,
  });
}

export function flowTimeout(flowId: string | null, node: string | null): FlowError {
  return new FlowError({
    code: -1,
    type: 'flow_error',
    name: 'FlowTimeout',
    message: `flow '${flowId ?? '(unnamed)'}' exceeded its time budget`,
    node,
  });
}

export function flowCancelled(node: string | null): FlowError {
  return new FlowError({
    code: -500,
    type: 'flow_error',
    name: 'FlowCancelled',
    message: 'the execution was cancelled',
    node,
  });
}

export function errorResult(node: string | null, error: FlowResultError): FlowError {
  return new FlowError({
    code: error.code,
    type: 'error_result',
    name: 'ErrorResult',
    message: error.message,
    node,
  });
}

export function nodeNotFound(id: string | null, message?: string): FlowError {
  return new FlowError({
    code: -500,
    type: 'node_not_found',
    name: 'NodeNotFound',
    message: message ?? `Node with id '${id}' not found`,
    node: id,
  });
}

export function flowError(message: string, node: string | null, cause?: unknown): FlowError {
  return new FlowError({ code: -500, type: 'flow_error', name: 'FlowError', message, node, cause });
}

export function resumeError(message: string, node: string | null): FlowError {
  return new FlowError({ code: -500, type: 'node_error', name: 'ResumeError', message, node });
}

/** Any other exception escaping the engine becomes FlowError -500 with its cause (docs/flow-format.md §7.1). */
export function asFlowError(error: unknown, node: string | null): FlowError {
  if (error instanceof FlowError) return error;
  return flowError(
    `unexpected failure${node ? ` at node '${node}'` : ''}: ${errorName(error)}: ${errorMessage(error)}`,
    node,
    error,
  );
}

/** Distributed mode flattens every error to -500 `flow_error` with the original as cause (§6.5). */
export function flatten(error: FlowError): FlowError {
  if (error.code === -500 && error.type === 'flow_error') return error;
  return new FlowError({
    code: -500,
    type: 'flow_error',
    name: 'FlowError',
    message: error.message,
    node: error.node,
    cause: error,
  });
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The execution made as many node visits as it may (a cycle, or a loop gone wrong). */
export function nestingLimit(node: string, limit: number): FlowError {
  return new FlowError({
    code: -500,
    type: 'nesting_limit',
    name: 'NestingLimit',
    message: `node '${node}' would start a child execution ${limit + 1} levels deep, past the limit of ${limit} (maxChildDepth)`,
    node,
  });
}

export function stepLimit(node: string, limit: number): FlowError {
  return new FlowError({
    code: -500,
    type: 'step_limit',
    name: 'StepLimit',
    message: `the execution reached its limit of ${limit} node visits before node '${node}' (maxSteps)`,
    node,
  });
}
