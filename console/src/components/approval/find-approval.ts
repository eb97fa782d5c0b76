import { api } from '../../api/client';
import type { Approval, Page } from '../../api/types';

/** The approval an execution waits on, read from the inbox (`GET /v1/approvals`, paged). */
export async function findApproval(executionId: string, nodeId: string): Promise<Approval | null> {
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const page: Page<Approval> = await api.get<Page<Approval>>('/v1/approvals', {
      limit: 200,
      cursor,
    });
    const found = page.items.find((a) => a.executionId === executionId && a.nodeId === nodeId);
    if (found) return found;
    if (!page.nextCursor) return null;
    cursor = page.nextCursor;
  }
  return null;
}
