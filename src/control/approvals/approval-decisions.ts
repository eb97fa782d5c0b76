import {
  type ControlKey,
  type ControlPage,
  type ControlStore,
  ID_SEPARATOR,
  MAX_CONTROL_LIMIT,
} from '../../store/control-store.js';
import type { Verdict } from './approval-strategy.js';
import type { PendingApproval } from './pending-approval.js';

/** Which approval (one wait of one node): what its records are keyed by. */
type ApprovalRef = Pick<PendingApproval, 'tenantId' | 'executionId' | 'nodeId' | 'approvalId'>;

/** One approver's recorded decision. */
export interface DecisionRecord {
  approver: string;
  decision: Verdict;
  comment: string | null;
  /** ISO 8601 (ms): the order the policy reads decisions in. */
  decidedAt: string;
  /** Through the API with a key, or through a signed link. */
  via: 'api' | 'link';
}

/** The marker written once an approval is decided: whoever creates it delivers the event. */
export interface OutcomeRecord {
  finalDecision: Verdict;
  decidedAt: string;
  eventId: string;
}

export interface ApprovalRecords {
  /** Oldest first. */
  decisions: DecisionRecord[];
  outcome: OutcomeRecord | null;
}

/** A waiting approval and how far it got: what the approvals API shows of it. */
export interface ApprovalProgress {
  approval: PendingApproval;
  records: ApprovalRecords;
}

/**
 * Decisions outlive the wait they belong to only so long: an approval still pending after this
 * keeps its node waiting, but its partial decisions are gone (a year; documented).
 */
export const DECISION_TTL_MS = 365 * 24 * 3600_000;

const COLLECTION = 'approval_decisions' as const;
const DECISION = 'd';
const OUTCOME = 'outcome';

/**
 * The decisions of approval visits, in the control store under
 * (tenant, execution ␟ node ␟ approval id ␟ …): one record per approver, created atomically
 * (a second decision by the same approver is refused), and one outcome marker, created
 * atomically (the event is delivered by the one caller that creates it).
 */
export class ApprovalDecisions {
  constructor(private readonly control: ControlStore) {}

  /** False when this approver already decided this visit. */
  record(approval: PendingApproval, decision: DecisionRecord): Promise<boolean> {
    return this.control.create(this.#key(approval, DECISION, decision.approver), decision, {
      ttlMs: DECISION_TTL_MS,
    });
  }

  /** False when another caller already marked the outcome (and delivers it). */
  settle(approval: PendingApproval, outcome: OutcomeRecord): Promise<boolean> {
    return this.control.create(this.#key(approval, OUTCOME), outcome, {
      ttlMs: DECISION_TTL_MS,
    });
  }

  /** Every decision of the visit (oldest first) and its outcome, if any. */
  async read(approval: ApprovalRef): Promise<ApprovalRecords> {
    const prefix = this.#key(approval).id + ID_SEPARATOR;
    const decisions: DecisionRecord[] = [];
    let outcome: OutcomeRecord | null = null;
    let after: string | null = null;
    do {
      const page: ControlPage<DecisionRecord | OutcomeRecord> = await this.control.list({
        collection: COLLECTION,
        tenant: approval.tenantId,
        prefix,
        limit: MAX_CONTROL_LIMIT,
        after,
      });
      for (const item of page.items) {
        if (item.key.id === prefix + OUTCOME) outcome = item.doc as OutcomeRecord;
        else decisions.push(item.doc as DecisionRecord);
      }
      after = page.next;
    } while (after !== null);
    decisions.sort(byTime);
    return { decisions, outcome };
  }

  #key(approval: ApprovalRef, ...parts: string[]): ControlKey {
    return {
      collection: COLLECTION,
      tenant: approval.tenantId,
      id: [approval.executionId, approval.nodeId, approval.approvalId, ...parts].join(ID_SEPARATOR),
    };
  }
}

function byTime(a: DecisionRecord, b: DecisionRecord): number {
  if (a.decidedAt !== b.decidedAt) return a.decidedAt < b.decidedAt ? -1 : 1;
  return a.approver < b.approver ? -1 : a.approver > b.approver ? 1 : 0;
}
