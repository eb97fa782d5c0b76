import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ApiServices } from '../api-services.js';
import { ApiProblem } from '../problem.js';
import type { ServerEnv } from '../server-env.js';
import { toProblem } from '../to-problem.js';
import { approvalToConfirm } from '../../control/approvals/approval-link-checks.js';
import { ApprovalDecisions } from '../../control/approvals/approval-decisions.js';
import { loadPendingApproval } from '../../control/approvals/pending-approval.js';
import { submitDecision } from '../../control/approvals/submit-decision.js';
import { type LinkCheck, ApprovalLinks, type LinkClaims } from './approval-links.js';
import { type ApprovalPage, renderApprovalPage } from './approval-page.js';
import { ApprovalSchema, approvalTarget } from './approval-schemas.js';
import { approvalView, type ApprovalView } from './approval-view.js';

const TokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(4096)
    .openapi({ param: { name: 'token', in: 'path' } }),
});

const html = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string() } },
});

const REFUSED =
  'a tampered, expired, used or unknown link (403), no such approval (404), or nothing left to decide (409)';

const show = createRoute({
  method: 'get',
  path: '/v1/approval-links/{token}',
  tags: ['approvals'],
  summary: 'The confirmation page of a signed approval link (never decides)',
  security: [],
  request: { params: TokenParam },
  responses: { 200: html('the confirmation page'), 403: html(REFUSED) },
});

const use = createRoute({
  method: 'post',
  path: '/v1/approval-links/{token}',
  tags: ['approvals'],
  summary: 'Decide through a signed approval link (once)',
  description:
    'Body (optional): a form or JSON with `comment`. Answers with a page, or with the approval as JSON when `Accept: application/json` (refusals are then problem+json).',
  security: [],
  request: { params: TokenParam },
  responses: {
    200: {
      description: 'recorded',
      content: {
        'text/html': { schema: z.string() },
        'application/json': { schema: ApprovalSchema },
      },
    },
    403: html(REFUSED),
  },
});

/** The public link routes (api-app.ts lets `/v1/approval-links/*` through: the token is the credential). */
export function registerApprovalLinkRoutes(
  app: OpenAPIHono<ServerEnv>,
  services: ApiServices,
): void {
  const links = new ApprovalLinks(services.control, services.secret);

  app.openapi(show, async (c) => {
    try {
      const claims = await claimsOf(services, await links.check(c.req.valid('param').token));
      return page(c, 200, await confirmation(services, claims));
    } catch (error) {
      return problemPage(c, services, error);
    }
  });

  app.openapi(use, async (c) => {
    const wantsJson = /\bapplication\/json\b/.test(c.req.header('accept') ?? '');
    try {
      const comment = await readComment(c);
      const claims = await claimsOf(services, await links.redeem(c.req.valid('param').token));
      c.set('tenant', claims.tenantId);
      const view = await decideByLink(services, links, claims, comment);
      await services.audit.record(
        c,
        `approval.${claims.decision}`,
        `${approvalTarget(claims.executionId, claims.nodeId, claims.approver)} (link)`,
        { role: 'approval_link' },
      );
      if (wantsJson) return c.json(view, 200);
      return page(c, 200, {
        kind: 'done',
        approval: view,
        approver: claims.approver,
        decision: claims.decision,
      });
    } catch (error) {
      if (wantsJson) throw error;
      return problemPage(c, services, error);
    }
  });
}

/** The decision a redeemed link names; when it is not recorded, the link stays usable. */
async function decideByLink(
  services: ApiServices,
  links: ApprovalLinks,
  claims: LinkClaims,
  comment: string | undefined,
): Promise<ApprovalView> {
  try {
    return approvalView(
      await submitDecision(services, {
        tenantId: claims.tenantId,
        executionId: claims.executionId,
        nodeId: claims.nodeId,
        approver: claims.approver,
        decision: claims.decision,
        comment,
        via: 'link',
        approvalId: claims.approvalId,
      }),
    );
  } catch (error) {
    // A missing comment or an outage must not burn the link.
    await links.restore(claims).catch(() => undefined);
    throw error;
  }
}

/** The page before deciding: what is asked, refused already when there is nothing to decide. */
async function confirmation(services: ApiServices, claims: LinkClaims): Promise<ApprovalPage> {
  return {
    kind: 'confirm',
    approval: approvalView(await approvalToConfirm(services, claims)),
    approver: claims.approver,
    decision: claims.decision,
    expiresAt: claims.expiresAt,
  };
}

const LINK_REFUSALS: Record<Exclude<LinkCheck, { ok: true }>['reason'], string> = {
  invalid: 'this approval link is not valid (incomplete or altered); ask for a new one',
  expired: 'this approval link has expired; ask for a new one',
  used: 'this approval link was already used (each link works once); ask for a new one if needed',
};

/** A refused link is 403 `forbidden`, whatever the reason (the detail says which). */
async function claimsOf(services: ApiServices, check: LinkCheck): Promise<LinkClaims> {
  if (check.ok) return check.claims;
  const why =
    check.reason === 'used' && check.claims !== null
      ? await whyUsedUp(services, check.claims).catch(() => null)
      : null;
  throw new ApiProblem('forbidden', why ?? LINK_REFUSALS[check.reason]);
}

/**
 * A link that no longer works because its approval moved on: say how (the approver decided, the
 * approval is decided, the wait is over), not only that the link was used, which it may not
 * have been (another link of the same approver decided). Null when nothing moved on.
 */
async function whyUsedUp(services: ApiServices, claims: LinkClaims): Promise<string | null> {
  const records = await new ApprovalDecisions(services.control).read(claims);
  const mine = records.decisions.find((d) => d.approver === claims.approver);
  if (mine)
    return `${claims.approver} already decided this approval: ${mine.decision} at ${mine.decidedAt}`;
  if (records.outcome)
    return `this approval is already decided: ${records.outcome.finalDecision} at ${records.outcome.decidedAt}`;
  const waiting = await loadPendingApproval(
    services,
    claims.tenantId,
    claims.executionId,
    claims.nodeId,
  ).catch(() => null);
  if (waiting === null || waiting.approvalId !== claims.approvalId)
    return 'the wait this link was made for is over: there is nothing left to decide';
  return null;
}

const CommentBody = z.object({ comment: z.string().max(4000).optional() });

/** The form's (or a JSON body's) `comment`; no body is no comment. */
async function readComment(c: Context<ServerEnv>): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  let raw: unknown = {};
  try {
    if (type.startsWith('application/json')) raw = await c.req.json<unknown>();
    else if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/'))
      raw = await c.req.parseBody();
  } catch (error) {
    if (error instanceof ApiProblem) throw error; // over the body limit: 413
    raw = null;
  }
  const parsed = CommentBody.safeParse(raw);
  if (!parsed.success)
    throw new ApiProblem('invalid_request', 'the body must carry at most a text `comment`', {
      errors: [{ path: 'body.comment', message: 'text, at most 4000 characters' }],
    });
  const comment = parsed.data.comment?.trim();
  return comment === '' ? undefined : comment;
}

const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

function page(c: Context<ServerEnv>, status: 200 | ApiProblem['status'], content: ApprovalPage) {
  return c.html(renderApprovalPage(content), status, PAGE_HEADERS);
}

const PAGE_TITLES: Partial<Record<ApiProblem['code'], string>> = {
  forbidden: 'This link cannot be used',
  not_found: 'Approval not found',
  conflict: 'Nothing to decide',
  execution_terminal: 'Nothing to decide',
  invalid_request: 'Please check your answer',
  service_unavailable: 'Please try again in a moment',
};

function problemPage(c: Context<ServerEnv>, services: ApiServices, error: unknown): Response {
  const problem = toProblem(error);
  if (problem.code === 'internal_error')
    services.log.error(
      { err: error, requestId: c.get('requestId'), path: '/v1/approval-links/…' },
      'internal error',
    );
  const message =
    problem.code === 'internal_error'
      ? `Something went wrong on our side. Quote this request id: ${c.get('requestId')}`
      : problem.message;
  return page(c, problem.status, {
    kind: 'refused',
    title: PAGE_TITLES[problem.code] ?? 'Something went wrong',
    message,
  });
}
