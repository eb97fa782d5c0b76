import { nodeResult } from '../state/checkpoint-context.js';
import type { ExecutionState } from '../state/execution-state.js';
import type { CommandContext } from './command-context.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { humanValue } from './output.js';
import { shellQuote, storeFlag } from './store-url.js';

/** Prints where an execution stands after a command drove it, and returns the exit code. */
export function reportExecution(
  context: CommandContext,
  state: ExecutionState,
  storeOption: string | undefined,
): ExitCode {
  const out = context.output();
  const summary = { executionId: state.executionId, status: state.status, flowId: state.flowId };
  switch (state.status) {
    case 'completed':
      out.result({ ...summary, result: state.result }, humanValue(state.result));
      return EXIT.ok;
    case 'suspended': {
      const waiting = state.waiting;
      const data = JSON.stringify(exampleEventData(state));
      const command = `plaita event ${state.executionId} ${shellQuote(waiting?.eventType ?? 'EVENT')} --data ${shellQuote(data)}${storeFlag(storeOption)}`;
      const due = waiting?.dueAt
        ? `\nits timer fires at ${waiting.dueAt} (any plaita worker, run or event command on this store fires it)`
        : '';
      // A memory store ends with this process: there is nothing left to resume.
      if (storeOption?.trim() === 'memory') {
        out.result(
          { ...summary, waiting },
          `execution ${state.executionId} is waiting at node '${waiting?.nodeId ?? '?'}' for event '${waiting?.eventType ?? '?'}'${due}\nit cannot be resumed: --store memory keeps nothing after this command (use the default SQLite file, or --store sqlite:PATH)`,
        );
        return EXIT.ok;
      }
      out.result(
        { ...summary, waiting, resume: command },
        `execution ${state.executionId} is waiting at node '${waiting?.nodeId ?? '?'}' for event '${waiting?.eventType ?? '?'}'${due}\nresume it with:\n  ${command}`,
      );
      return EXIT.ok;
    }
    case 'error':
    case 'cancelled':
      out.result({ ...summary, error: state.error }, '');
      out.note(
        `execution ${state.executionId} ${state.status === 'error' ? 'failed' : 'was cancelled'}: ${describeError(state)}`,
      );
      return EXIT.failed;
    case 'queued':
    case 'running':
      out.result(summary, `execution ${state.executionId} is ${state.status}`);
      return EXIT.ok;
  }
}

/** `quota exceeded [code 4001, error_result, node 'e']`: how run, status and the rest show a stored error. */
export function describeError(state: ExecutionState): string {
  const error = state.error;
  if (!error) return '';
  const type = typeof error.details?.type === 'string' ? `, ${error.details.type}` : '';
  const node = error.node ? `, node '${error.node}'` : '';
  return `${error.message} [code ${String(error.code)}${type}${node}]`;
}

/** A sample payload for the resume command: what an approval service would publish. */
function exampleEventData(state: ExecutionState): Record<string, unknown> {
  if (state.waiting?.eventType !== 'approval_decision') return {};
  const node = nodeResult(state.context, state.waiting.nodeId) as
    { service_config?: { approver_config?: { approvers?: unknown[] } } } | undefined;
  const approver = node?.service_config?.approver_config?.approvers?.[0] ?? 'approver@example.com';
  return {
    final_decision: 'approve',
    approval_details: [{ approver_id: approver, decision: 'approve' }],
  };
}
