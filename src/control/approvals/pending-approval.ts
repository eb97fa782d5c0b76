import { nodeResult } from '../../state/checkpoint-context.js';
import { z } from 'zod';
import { errorCode } from '../../errors/plaita-error.js';
import { ExecutionTerminalError } from '../../errors/execution-errors.js';
import type { Flow } from '../../flow/flow.js';
import { type ExecutionState, isTerminal } from '../../state/execution-state.js';
import type { ExecutionStore } from '../../store/execution-store.js';
import { getOwn } from '../../util/own-record.js';
import type { FlowResolver } from '../../worker/flow-resolver.js';
import { ConflictError, NotFoundError } from '../../errors/control-errors.js';
import {
  approverNameProblem,
  approverText,
  namesNobody,
} from '../../nodes/suspend/approver-name.js';
import { APPROVAL_EVENT_TYPE } from './approval-event.js';
import { APPROVAL_STRATEGIES, type ApprovalStrategy } from './approval-strategy.js';

/** What finding an approval reads: the execution and the flow it is pinned to. */
export interface ApprovalReads {
  store: ExecutionStore;
  resolver: FlowResolver;
}

/** An approval node an execution waits at, as the approvals API shows and decides it. */
export interface PendingApproval {
  tenantId: string;
  executionId: string;
  nodeId: string;
  /** The node's `approval_id` of this visit: decisions and links belong to one visit. */
  approvalId: string;
  flowId: string | null;
  flowVersion: string | null;
  title: string;
  content: string;
  /** As the node resolved them when it ran (expressions evaluated, lists flattened). */
  approvers: string[];
  strategy: ApprovalStrategy;
  allowComments: boolean;
  requireComments: boolean;
  /** When the node started waiting (ISO 8601). */
  since: string;
}

export type ApprovalLookup =
  | { kind: 'waiting'; approval: PendingApproval }
  | { kind: 'terminal' }
  /** The pinned flow has no approval node with that id (or the flow is gone). */
  | { kind: 'not_approval' }
  /** An approval node, but the execution is not waiting at it now. */
  | { kind: 'not_waiting' };

/**
 * The pending state the approval node stores while it waits (docs/flow-format.md §3.17–3.18: its
 * `service_config` is what an approval service needs). Checked, not cast: a state that does not
 * have this shape is not a pending approval.
 */
const StoredApproval = z.object({
  status: z.literal('pending'),
  service_config: z.object({
    approval_id: z.string().min(1),
    approval_config: z.object({
      title: z.unknown(),
      content: z.unknown(),
      approval_strategy: z.enum(APPROVAL_STRATEGIES),
    }),
    approver_config: z.object({ approvers: z.array(z.unknown()) }),
    form_config: z
      .object({ allow_comments: z.boolean(), require_comments: z.boolean() })
      .partial()
      .optional(),
  }),
});

/**
 * An approver the node named. The node keeps a `$` reference that gave nothing as its raw text
 * (docs/flow-format.md §3.17): that is the flow's mistake, never an identity anyone may decide as.
 * Nor is a name no decision can carry (a control character, over 320 characters): the node
 * refuses one now, but an approval that waited since before it did must not list one.
 */
function isApproverId(approver: string): boolean {
  return !namesNobody(approver) && approverNameProblem(approver) === null;
}

/** Pure: where `state` stands with respect to the approval node `nodeId` of its pinned `flow`. */
export function approvalAt(
  state: ExecutionState,
  flow: Flow | null,
  nodeId: string,
): ApprovalLookup {
  if (flow?.nodesById.get(nodeId)?.def.type !== 'approval') return { kind: 'not_approval' };
  if (isTerminal(state.status)) return { kind: 'terminal' };
  if (state.status !== 'suspended' || state.waiting?.nodeId !== nodeId)
    return { kind: 'not_waiting' };
  const stored = StoredApproval.safeParse(nodeResult(state.context, nodeId));
  if (!stored.success) return { kind: 'not_waiting' };
  const config = stored.data.service_config;
  const timing = getOwn(state.timings, nodeId);
  return {
    kind: 'waiting',
    approval: {
      tenantId: state.tenantId,
      executionId: state.executionId,
      nodeId,
      approvalId: config.approval_id,
      flowId: state.flowId,
      flowVersion: state.flowVersion,
      title: text(config.approval_config.title),
      content: text(config.approval_config.content),
      approvers: [...new Set(config.approver_config.approvers.map(approverText))].filter(
        isApproverId,
      ),
      strategy: config.approval_config.approval_strategy,
      allowComments: config.form_config?.allow_comments ?? true,
      requireComments: config.form_config?.require_comments ?? false,
      since: timing?.endedAt ?? timing?.startedAt ?? state.updatedAt,
    },
  };
}

/**
 * As `approvalAt`, reading the pinned flow. A flow no longer stored has no approval to decide
 * (it could not resume); an unreachable store is still an outage.
 */
export async function findApproval(
  services: ApprovalReads,
  state: ExecutionState,
  nodeId: string,
): Promise<ApprovalLookup> {
  return approvalAt(state, await pinnedFlowOrNull(services, state), nodeId);
}

/** The execution's pinned flow, or null when it is no longer stored. */
function pinnedFlowOrNull(services: ApprovalReads, state: ExecutionState): Promise<Flow | null> {
  return services.resolver
    .byHash(state.flowHash, { tenantId: state.tenantId })
    .catch((error: unknown) => {
      if (errorCode(error) === 'flow_definition_missing') return null;
      throw error;
    });
}

/**
 * The approval `nodeId` of the tenant's execution, waiting now. Otherwise NotFoundError for an
 * absent execution (another tenant's too) or a node that is not an approval node,
 * ExecutionTerminalError for a finished execution, ConflictError for one not waiting there.
 */
export async function loadPendingApproval(
  services: ApprovalReads,
  tenantId: string,
  executionId: string,
  nodeId: string,
): Promise<PendingApproval> {
  const state = await services.store.load(executionId, { tenantId });
  if (!state) throw new NotFoundError(`no execution ${executionId}`);
  const found = await findApproval(services, state, nodeId);
  switch (found.kind) {
    case 'waiting':
      return found.approval;
    case 'not_approval':
      throw new NotFoundError(`execution ${executionId} has no approval node ${nodeId}`);
    case 'terminal':
      throw new ExecutionTerminalError(`execution ${executionId} is ${state.status}`, {
        executionId,
      });
    case 'not_waiting':
      throw new ConflictError(
        `execution ${executionId} is not waiting at approval node ${nodeId} (it is ${state.status})`,
      );
  }
}

/** Titles, contents and approvers are usually strings; anything else is shown as JSON. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value) ?? '';
}

/**
 * An `approval_decision` event sent straight to an execution whose flow has an approval node
 * would decide it with no approver named and no strategy counted (docs/http-api.md,
 * "Approvals"): such decisions go through the approvals route. A flow no longer stored
 * cannot resume, so there is nothing to protect.
 */
export async function refuseDecisionBypass(
  services: ApprovalReads,
  state: ExecutionState,
): Promise<void> {
  if (isTerminal(state.status)) return; // the event route answers execution_terminal
  const flow = await pinnedFlowOrNull(services, state);
  const approval = flow?.nodes.find((node) => node.def.type === 'approval');
  if (approval === undefined) return;
  throw new ConflictError(
    `execution ${state.executionId} decides approval node ${approval.def.id} by its approvers: ` +
      `POST /v1/approvals/${state.executionId}/${approval.def.id}/decisions records each ` +
      `decision and sends ${APPROVAL_EVENT_TYPE} once the node's strategy is met`,
    {
      fieldIssues: [
        { path: 'body.type', message: `${APPROVAL_EVENT_TYPE} is sent by the approvals route` },
      ],
    },
  );
}
