/**
 * The shapes of the public `/v1` API the console reads (the server's zod schemas are the truth;
 * `GET /openapi.json` lists them). Only the fields the console uses are named.
 */

export type ExecutionStatus =
  'queued' | 'running' | 'waiting' | 'completed' | 'error' | 'cancelled';
export const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  'queued',
  'running',
  'waiting',
  'completed',
  'error',
  'cancelled',
];
export const TERMINAL: readonly ExecutionStatus[] = ['completed', 'error', 'cancelled'];

export type NodeStatus = 'done' | 'running' | 'waiting' | 'failed' | 'cancelled';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface ErrorView {
  code: string | number | null;
  type: string | null;
  nodeId: string | null;
  message: string;
}

export interface Waiting {
  nodeId: string;
  eventType: string;
  dueAt: string | null;
}

export interface ExecutionSummary {
  executionId: string;
  status: ExecutionStatus;
  flowId: string | null;
  flowVersion: string | null;
  flowHash: string | null;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
  error?: ErrorView;
  waiting?: Waiting;
}

export interface NodeView {
  nodeId: string;
  type: string | null;
  status: NodeStatus;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  attempts: number;
  output: unknown;
}

export interface ExecutionView extends ExecutionSummary {
  tenantId: string;
  input: unknown;
  result?: unknown;
  nodes: NodeView[];
  version: number;
  /** Operator retries made of it (ours). */
  retries: number;
  replayOf?: string;
  /** Running only (ours): the worker holding its lease, or null when none does. */
  lease?: { owner: string; expiresAt: string } | null;
}

export interface PinnedFlow {
  executionId: string;
  flowId: string | null;
  flowVersion: string | null;
  flowHash: string;
  document: FlowDocument;
}

/** A flow document as the console reads it: nodes with an id, a type and their fields. */
export interface FlowDocument {
  flow_id?: string;
  version?: string;
  nodes?: FlowNode[];
  [key: string]: unknown;
}

export interface FlowNode {
  id?: unknown;
  type?: unknown;
  next?: unknown;
  [key: string]: unknown;
}

export interface Approval {
  executionId: string;
  nodeId: string;
  approvalId: string;
  flowId: string | null;
  flowVersion: string | null;
  title: string;
  content: string;
  approvers: string[];
  strategy: 'any' | 'all' | 'majority';
  allowComments: boolean;
  requireComments: boolean;
  decisions: Array<{
    approver: string;
    decision: 'approve' | 'reject';
    comment: string | null;
    decidedAt: string;
  }>;
  decided: boolean;
  finalDecision: 'approve' | 'reject' | null;
  since: string;
}

export interface FlowSummary {
  flowId: string;
  latestVersion: string | null;
  versionCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface VersionSummary {
  flowId: string;
  version: string;
  status: 'draft' | 'published';
  hash: string;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

export interface FlowWithVersions extends FlowSummary {
  versions: VersionSummary[];
}

export interface FlowIssue {
  severity: 'error' | 'warning';
  code: string;
  path: string;
  nodeId: string | null;
  message: string;
  suggestion?: string;
}

export interface FlowVersion extends VersionSummary {
  document: FlowDocument;
  issues: FlowIssue[];
}

export interface DryRunResult {
  status: 'completed' | 'error' | 'waiting';
  result?: unknown;
  error?: ErrorView;
  waiting?: { nodeId: string; eventType: string };
  trace: Array<{
    nodeId: string;
    type: string | null;
    status: 'done' | 'pinned' | 'failed' | 'waiting';
    output: unknown;
    durationMs: number;
  }>;
}

export interface Schedule {
  id: string;
  flowId: string;
  version: string | null;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  enabled: boolean;
  overlap: 'allow' | 'skip';
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastExecutionId: string | null;
  lastError: string | null;
  skipped: number;
  createdAt: string;
  updatedAt: string;
}

export interface DeadLetter {
  id: string;
  reason: string;
  lastError: string | null;
  deliveryCount: number;
  executionId: string | null;
  tenantId: string | null;
  kind: string | null;
  payload: string;
  at: string;
}

export interface BulkOperation {
  id: string;
  action: 'cancel' | 'retry' | 'replay';
  status: 'pending' | 'running' | 'completed';
  matched: number;
  done: number;
  failed: number;
  failures: Array<{ executionId: string; reason: string }>;
}

export interface Worker {
  id: string;
  host: string;
  pid: number;
  version: string;
  concurrency: number;
  inFlight: number;
  startedAt: string;
  lastSeenAt: string;
}

export type Role = 'viewer' | 'operator' | 'admin';

export interface ApiKey {
  id: string;
  name: string;
  role: Role;
  tenant: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface AuditEntry {
  id: string;
  at: string;
  keyId: string | null;
  role: string;
  tenant: string;
  action: string;
  target: string;
  requestId: string;
  clientAddress: string | null;
}

export interface Caller {
  keyId: string | null;
  role: Role;
  tenant: string;
  keyTenant: string;
}

export interface ExecutionStats {
  window: string;
  from: string;
  to: string;
  bucketMs: number;
  buckets: Array<{ at: string; started: number; completed: number; failed: number }>;
  counted: number;
  truncated: boolean;
}

export interface QueueStats {
  ready: number;
  inFlight: number;
  delayed: number;
  deadLetters: number;
  oldestReadyAgeMs: number | null;
}
