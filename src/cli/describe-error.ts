import type { FlowError } from '../errors/flow-errors.js';

/** `error: <message> [code -9527, node_error, node 'calc']` plus the cause when there is one. */
export function describeFlowError(error: FlowError): string {
  const where = error.node ? `, node '${error.node}'` : '';
  let text = `error: ${error.message} [code ${String(error.code)}, ${error.type}${where}]`;
  const cause = error.cause as
    { name?: string; message?: string; code?: string | number | null } | undefined;
  if (cause?.message && cause.message !== error.message) {
    text += `\n  cause: ${cause.name ?? 'Error'}: ${cause.message}${cause.code !== undefined ? ` (code ${String(cause.code)})` : ''}`;
  }
  return text;
}
