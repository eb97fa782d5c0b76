import { z } from 'zod';
import type { FlowLoader } from '../../flow/flow-loader.js';
import type { NodeContext } from '../../flow/node-type.js';
import { builtinNode, enumField } from '../builtin-node.js';
import { approverProblem } from './approver-name.js';
import { ApproverNameError } from '../../errors/node-errors.js';
import { resumeSuspended, serviceState, serviceValue } from './suspend-state.js';

interface ApprovalFields {
  title: unknown;
  content: unknown;
  approvers: unknown[];
  approvalType: 'manual';
  strategy: 'any' | 'all' | 'majority';
  autoEscalation: boolean;
  escalationTimeoutHours: number;
  escalationApprovers: unknown[];
  formFields: unknown[];
  allowComments: boolean;
  requireComments: boolean;
  notificationConfig: Record<string, unknown>;
}

/** docs/flow-format.md §3.18 `approval`: waits for `approval_decision` from the approval service. */
export const approvalNode = builtinNode({
  type: 'approval',
  suspending: true,
  schema: z.looseObject({
    approval_title: z.string(),
    approval_content: z.string(),
    approvers: z.array(z.unknown()),
    approval_type: enumField(['manual']).optional(),
    approval_strategy: enumField(['any', 'all', 'majority']).optional(),
    auto_escalation: z.boolean().optional(),
    escalation_timeout_hours: z.number().positive().optional(),
    escalation_approvers: z.array(z.unknown()).optional(),
    form_fields: z.array(z.unknown()).optional(),
    allow_comments: z.boolean().optional(),
    require_comments: z.boolean().optional(),
    notification_config: z.record(z.string(), z.unknown()).optional(),
  }),
  load: (raw, loader): ApprovalFields => ({
    title: raw.approval_title,
    content: raw.approval_content,
    approvers: checkedApprovers(raw.approvers, String(raw.id), loader),
    approvalType: raw.approval_type ?? 'manual',
    strategy: raw.approval_strategy ?? 'any',
    autoEscalation: raw.auto_escalation ?? false,
    escalationTimeoutHours: raw.escalation_timeout_hours ?? 24,
    escalationApprovers: raw.escalation_approvers ?? [],
    formFields: raw.form_fields ?? [],
    allowComments: raw.allow_comments ?? true,
    requireComments: raw.require_comments ?? false,
    notificationConfig: raw.notification_config ?? {},
  }),
  async run(ctx) {
    const d = ctx.def;
    const now = ctx.clock.now();
    const approvers = await resolveList(ctx, d.approvers);
    approvers.forEach((approver, index) => {
      const problem = approverProblem(approver);
      if (problem !== null) throw new ApproverNameError(ctx.nodeId, index, problem);
    });
    return serviceState(
      ctx,
      'approval_decision',
      {},
      {
        approval_id: `approval_${ctx.nodeId}_${now}`,
        approval_config: {
          title: await serviceValue(ctx, d.title),
          content: await serviceValue(ctx, d.content),
          approval_type: d.approvalType,
          approval_strategy: d.strategy,
          auto_escalation: d.autoEscalation,
          escalation_timeout_hours: d.escalationTimeoutHours,
        },
        approver_config: {
          approvers,
          escalation_approvers: await resolveList(ctx, d.escalationApprovers),
        },
        form_config: {
          form_fields: d.formFields,
          allow_comments: d.allowComments,
          require_comments: d.requireComments,
        },
        notification_config: d.notificationConfig,
      },
      now,
    );
  },
  resume: resumeSuspended,
});

/** Each item may be a `$` expression; an item that evaluates to a list is flattened. */
async function resolveList(ctx: NodeContext<unknown>, items: unknown[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const item of items) {
    const value = await serviceValue(ctx, item);
    if (Array.isArray(value)) out.push(...(value as unknown[]));
    else out.push(value);
  }
  return out;
}

/**
 * The written approvers, each literal name checked (in a literal list too, flattened as the
 * node does): one no decision could name is a definition issue at its path. `$` references are
 * checked when the node resolves them.
 */
function checkedApprovers(approvers: unknown[], nodeId: string, loader: FlowLoader): unknown[] {
  const check = (approver: unknown, path: string): void => {
    if (Array.isArray(approver)) {
      approver.forEach((item: unknown, index) => check(item, `${path}[${index}]`));
      return;
    }
    const problem = approverProblem(approver);
    if (problem !== null)
      loader.issue(path, `approval node "${nodeId}": the approver ${problem}`, 'approver_invalid');
  };
  approvers.forEach((approver, index) => check(approver, `approvers[${index}]`));
  return approvers;
}
