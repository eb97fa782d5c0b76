import { approvalToLink } from '../../control/approvals/approval-link-checks.js';
import type { ApiServices } from '../api-services.js';
import { ApprovalLinks } from './approval-links.js';

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
 * A signed approve/reject pair for one approver of a waiting approval (docs/http-api.md §4),
 * refused as `approvalToLink` says.
 */
export async function issueLinks(
  services: ApiServices,
  request: LinkRequest,
): Promise<IssuedLinks> {
  const approval = await approvalToLink(services, request);
  const pair = await new ApprovalLinks(services.control, services.secret).issue(
    approval,
    request.approver,
    request.ttlMs,
  );
  const base = `${request.baseUrl.replace(/\/+$/, '')}/v1/approval-links/`;
  return {
    approveUrl: base + pair.approve,
    rejectUrl: base + pair.reject,
    expiresAt: new Date(pair.expiresAt).toISOString(),
  };
}
