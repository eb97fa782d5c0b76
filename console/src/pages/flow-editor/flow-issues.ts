import type { ApiError } from '../../api/client';
import type { FlowDocument, FlowIssue } from '../../api/types';

/** An issue as the editor lists it: from `validate`, or read back from a refusal (any code). */
export type EditorIssue = Omit<FlowIssue, 'code'> & { code: string };

/** The node an issue sits on: its `nodeId`, else the node its `nodes[i]` path points into. */
export function nodeOfIssue(
  issue: { path: string; nodeId?: string | null },
  doc: FlowDocument | null,
): string | null {
  if (issue.nodeId) return issue.nodeId;
  const index = /^(?:body\.)?nodes\[(\d+)\]/.exec(issue.path)?.[1];
  const nodes: unknown = doc?.nodes;
  const node: unknown =
    index === undefined || !Array.isArray(nodes) ? undefined : nodes[Number(index)];
  const id = node && typeof node === 'object' ? (node as Record<string, unknown>).id : undefined;
  return typeof id === 'string' ? id : null;
}

/** The issues of each node (those on no node are listed only). */
export function issuesByNode(
  issues: readonly EditorIssue[] | null,
  doc: FlowDocument | null,
): Map<string, EditorIssue[]> {
  const map = new Map<string, EditorIssue[]>();
  for (const issue of issues ?? []) {
    const node = nodeOfIssue(issue, doc);
    if (node) map.set(node, [...(map.get(node) ?? []), issue]);
  }
  return map;
}

/** 422 `invalid_flow` problems list `{path, message}` with "error code: text" messages. */
export function issuesFromProblem(error: ApiError, doc: FlowDocument | null): EditorIssue[] {
  return error.errors.map((e) => {
    const m = /^(error|warning) (\w+): ([\s\S]*)$/.exec(e.message);
    return {
      severity: (m?.[1] as FlowIssue['severity'] | undefined) ?? 'error',
      code: m?.[2] ?? error.code,
      path: e.path,
      nodeId: nodeOfIssue({ path: e.path }, doc),
      message: m?.[3] ?? e.message,
    };
  });
}
