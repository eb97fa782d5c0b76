/**
 * The shapes of the public `/v1` API the console reads, named from the types generated from the
 * server's `/openapi.json` (openapi.generated.ts, made by `npm run build`): the server's zod
 * schemas are the only truth, and a console that reads a field the API lost fails to compile.
 */
import type { components, paths } from './openapi.generated';

type Schemas = components['schemas'];

/** The JSON answer of `GET path`. */
type GetAnswer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer T } } } };
}
  ? T
  : never;

/** The JSON answer of `POST path` (its 201). */
type PostAnswer<P extends keyof paths> = paths[P] extends {
  post: { responses: { 201: { content: { 'application/json': infer T } } } };
}
  ? T
  : never;

export type ExecutionView = Schemas['Execution'];
export type ExecutionSummary = Schemas['ExecutionSummary'];
export type ExecutionStatus = ExecutionView['status'];
export type NodeView = ExecutionView['nodes'][number];
export type NodeStatus = NodeView['status'];
export type ErrorView = NonNullable<ExecutionView['error']>;
export type Waiting = NonNullable<ExecutionView['waiting']>;
export type PinnedFlow = Schemas['PinnedFlow'];
export type Approval = Schemas['Approval'];
/** An approver's single-use signed links (`POST …/links`). */
export type SignedLinks = PostAnswer<'/v1/approvals/{executionId}/{nodeId}/links'>;
export type FlowSummary = Schemas['FlowSummary'];
export type VersionSummary = Schemas['FlowVersionSummary'];
export type FlowWithVersions = Schemas['Flow'];
export type FlowVersion = Schemas['FlowVersion'];
export type FlowIssue = Schemas['FlowIssue'];
export type FlowValidation = Schemas['FlowValidation'];
/** A flow's nodes and edges as the server draws them (from the node types' own targets). */
export type FlowGraph = Schemas['FlowGraph'];
export type GraphNode = FlowGraph['nodes'][number];
export type GraphEdge = FlowGraph['edges'][number];
export type DryRunResult = Schemas['DryRunResult'];
/** What a rerun from a node would run again (`POST …/rerun?dryRun=true`). */
export type RerunDryRun = Schemas['RerunDryRun'];
export type RerunNode = RerunDryRun['willRun'][number];
export type Schedule = Schemas['Schedule'];
export type DeadLetter = Schemas['DeadLetter'];
export type BulkOperation = Schemas['BulkOperation'];
export type Worker = Schemas['Worker'];
export type ApiKey = Schemas['ApiKey'];
export type Role = ApiKey['role'];
export type AuditEntry = Schemas['AuditEntry'];
export type Caller = GetAnswer<'/v1/sessions/current'>;
export type ExecutionStats = Schemas['ExecutionStats'];
export type QueueStats = Schemas['QueueStats'];

/** A keyset page of any list route (`items` + `nextCursor`). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const EXECUTION_STATUSES = [
  'queued',
  'running',
  'waiting',
  'completed',
  'error',
  'cancelled',
] as const satisfies readonly ExecutionStatus[];
export const TERMINAL: readonly ExecutionStatus[] = ['completed', 'error', 'cancelled'];

/** A flow document as the console reads one (typed in the editor, or an API `document`). */
export interface FlowDocument {
  flow_id?: unknown;
  version?: unknown;
  nodes?: unknown;
  [key: string]: unknown;
}

/** A node of a document: an object, its fields unchecked (the server checks them). */
export type FlowNode = Record<string, unknown>;

/** The objects in a document's `nodes` (anything else there is not a node). */
export function flowNodes(document: FlowDocument | null | undefined): FlowNode[] {
  const nodes: unknown = document?.nodes;
  if (!Array.isArray(nodes)) return [];
  return nodes.filter(
    (node): node is FlowNode => typeof node === 'object' && node !== null && !Array.isArray(node),
  );
}
