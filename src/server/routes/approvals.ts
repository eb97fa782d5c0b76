import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ApiServices } from '../api-services.js';
import { registerApprovalLinkRoutes } from '../approvals/approval-link-routes.js';
import {
  ApprovalParams,
  ApprovalSchema,
  ApproverName,
  approvalTarget,
} from '../approvals/approval-schemas.js';
import { approvalView } from '../approvals/approval-view.js';
import { parseExpiresIn } from '../approvals/expires-in.js';
import { issueLinks } from '../approvals/issue-links.js';
import { VERDICTS } from '../../control/approvals/approval-strategy.js';
import { listApprovals } from '../../control/approvals/list-approvals.js';
import { submitDecision } from '../../control/approvals/submit-decision.js';
import { requireRole } from '../auth/authenticate.js';
import { jsonBody, jsonResponse, PageQuery, pageOf, problems } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

const list = createRoute({
  method: 'get',
  path: '/v1/approvals',
  tags: ['approvals'],
  summary: 'Approval nodes waiting for a decision, newest execution first',
  description:
    'Pages follow the waiting executions of the tenant: a page may be shorter than `limit` (even empty with a `nextCursor`) when the executions it read wait for something else.',
  request: {
    query: z.object({
      status: z.enum(['pending']).optional().openapi({ description: 'only `pending` (default)' }),
      approver: ApproverName.optional(),
      ...PageQuery,
    }),
  },
  responses: { 200: jsonResponse(pageOf(ApprovalSchema), 'a page'), ...problems() },
});

const decide = createRoute({
  method: 'post',
  path: '/v1/approvals/{executionId}/{nodeId}/decisions',
  tags: ['approvals'],
  summary: 'Record an approver’s decision; delivers approval_decision once the strategy is met',
  description:
    '403 for an approver not on the list, 409 for a second decision by the same approver, an approval already decided, or an execution not waiting at that node.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ApprovalParams,
    body: jsonBody(
      z.strictObject({
        approver: ApproverName,
        decision: z.enum(VERDICTS),
        comment: z.string().max(4000).optional(),
      }),
    ),
  },
  responses: {
    201: jsonResponse(ApprovalSchema, 'recorded; the approval with its decisions so far'),
    ...problems(404, 409),
  },
});

const links = createRoute({
  method: 'post',
  path: '/v1/approvals/{executionId}/{nodeId}/links',
  tags: ['approvals'],
  summary: 'Signed, single-use, expiring approve/reject links for an approver without an account',
  description:
    '`expiresIn`: seconds, or a number with a unit (`90s`, `30m`, `24h`, `7d`); default 7 days, at most 90. The two links of a pair share one use.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ApprovalParams,
    body: jsonBody(
      z.strictObject({
        approver: ApproverName,
        expiresIn: z.union([z.string().max(20), z.number().int().positive()]).optional(),
      }),
    ),
  },
  responses: {
    201: jsonResponse(
      z.object({ approveUrl: z.string(), rejectUrl: z.string(), expiresAt: z.string() }),
      'the links (give them to the approver only)',
    ),
    ...problems(404, 409),
  },
});

export function registerApprovalsRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const page = await listApprovals(services, c.get('tenant'), {
      approver: query.approver,
      limit: query.limit ?? 50,
      cursor: query.cursor ?? null,
    });
    return c.json({ items: page.items.map(approvalView), nextCursor: page.nextCursor }, 200);
  });

  app.openapi(decide, async (c) => {
    const { executionId, nodeId } = c.req.valid('param');
    const body = c.req.valid('json');
    const decided = await submitDecision(services, {
      tenantId: c.get('tenant'),
      executionId,
      nodeId,
      approver: body.approver,
      decision: body.decision,
      comment: body.comment,
      via: 'api',
    });
    // The audit log names who decided what, never the comment or the event data.
    await services.audit.record(
      c,
      `approval.${body.decision}`,
      approvalTarget(executionId, nodeId, body.approver),
    );
    return c.json(approvalView(decided), 201);
  });

  app.openapi(links, async (c) => {
    const { executionId, nodeId } = c.req.valid('param');
    const body = c.req.valid('json');
    const issued = await issueLinks(services, {
      tenantId: c.get('tenant'),
      executionId,
      nodeId,
      approver: body.approver,
      ttlMs: parseExpiresIn(body.expiresIn),
      baseUrl: services.options.publicUrl ?? new URL(c.req.url).origin,
    });
    // Never the links themselves: they are credentials.
    await services.audit.record(
      c,
      'approval.link',
      approvalTarget(executionId, nodeId, body.approver),
    );
    return c.json(issued, 201);
  });

  registerApprovalLinkRoutes(app, services);
}
