import type { ApiServices } from '../api-services.js';
import { ApiProblem } from '../problem.js';
import { ApprovalDecisions } from './approval-decisions.js';
import { ApprovalLinks } from './approval-links.js';
import { loadPendingApproval } from './pending-approval.js';

export interface LinkRequest {
  tenantId: string;
  executionId: string;
  nodeId: string;
  approver: string;
  ttlMs: number;
  /** Where the server is reached: the `publicUrl` option, or the request's own origin. */
  baseUrl: string;
}

export interface IssuedLinks {
  approveUrl: string;
  rejectUrl: string;
  expiresAt: string;
}

/**
 * A signed approve/reject pair for one approver of a waiting approval (docs/http-api.md §4). Refused as a
 * decision would be: 404/409 when not waiting there, 403 for an approver not on the list, 409
 * when the approval or this approver already decided.
 */
export async function issueLinks(
  services: ApiServices,
  request: LinkRequest,
): Promise<IssuedLinks> {
  const { executionId, nodeId, approver } = request;
  const approval = await loadPendingApproval(services, request.tenantId, executionId, nodeId);
  if (!approval.approvers.includes(approver))
    throw new ApiProblem('forbidden', `${approver} is not an approver of approval node ${nodeId}`);
  const records = await new ApprovalDecisions(services.control).read(approval);
  if (records.outcome) throw new ApiProblem('conflict', `approval ${nodeId} is already decided`);
  if (records.decisions.some((d) => d.approver === approver))
    throw new ApiProblem('conflict', `${approver} already decided approval ${nodeId}`);
  const pair = await new ApprovalLinks(services.control, services.secret).issue(
    approval,
    approver,
    request.ttlMs,
  );
  const base = `${request.baseUrl.replace(/\/+$/, '')}/v1/approval-links/`;
  return {
    approveUrl: base + pair.approve,
    rejectUrl: base + pair.reject,
    expiresAt: new Date(pair.expiresAt).toISOString(),
  };
}
