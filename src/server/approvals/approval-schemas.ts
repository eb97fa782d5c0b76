import { z } from '@hono/zod-openapi';
import {
  hasUntypableCharacter,
  MAX_APPROVER_NAME_LENGTH,
} from '../../nodes/suspend/approver-name.js';
import { APPROVAL_STRATEGIES, VERDICTS } from '../../control/approvals/approval-strategy.js';

/** Ids and names become parts of control-store ids: no control characters (U+0000–U+001F, U+007F). */
const hasNoControl = (text: string): boolean =>
  ![...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

/** The approval node refuses the names this refuses (nodes/suspend/approver-name.ts). */
export const ApproverName = z
  .string()
  .min(1)
  .max(MAX_APPROVER_NAME_LENGTH)
  .refine(
    (name) => !hasUntypableCharacter(name),
    'no control characters (U+0000–U+001F, U+007F–U+009F) or line separators (U+2028, U+2029)',
  )
  .openapi({
    description: 'as listed by the approval node (exact match)',
    example: 'alice@example.com',
  });

const pathId = (name: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .refine(hasNoControl, 'no control characters')
    .openapi({ param: { name, in: 'path' } });

export const ApprovalParams = z.object({
  executionId: pathId('executionId'),
  nodeId: pathId('nodeId'),
});

export const ApprovalSchema = z
  .object({
    executionId: z.string(),
    nodeId: z.string(),
    approvalId: z.string(),
    flowId: z.string().nullable(),
    flowVersion: z.string().nullable(),
    title: z.string(),
    content: z.string(),
    approvers: z.array(z.string()),
    strategy: z.enum(APPROVAL_STRATEGIES),
    allowComments: z.boolean(),
    requireComments: z.boolean(),
    decisions: z.array(
      z.object({
        approver: z.string(),
        decision: z.enum(VERDICTS),
        comment: z.string().nullable(),
        decidedAt: z.string(),
      }),
    ),
    decided: z.boolean(),
    finalDecision: z.enum(VERDICTS).nullable(),
    since: z.string(),
  })
  .openapi('Approval');

/** How the audit log names an approver's action on an approval (never a comment or a token). */
export function approvalTarget(executionId: string, nodeId: string, approver: string): string {
  return `${executionId}/${nodeId} ${approver}`;
}
