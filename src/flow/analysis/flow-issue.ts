/**
 * What static analysis reports (docs/validate.md lists every code). Plain data, so the CLI,
 * the HTTP API and the web console can show or serialise it without this module.
 */

export type IssueSeverity = 'error' | 'warning';

/** Stable snake_case codes: callers switch on these, never on the message text. */
export const ISSUE_CODES = [
  // errors: the flow will fail when the part concerned runs (or cannot load at all)
  'definition_error',
  // a node needs a code backend (or subprocesses) the operator has not enabled
  'code_backend_disabled',
  // an approval node names an approver no decision could name (a control character, too long)
  'approver_invalid',
  'expression_parse_error',
  'wrong_argument_count',
  'unknown_target',
  'missing_next',
  'missing_start',
  'no_branches',
  'flow_not_found',
  // warnings: probably a mistake, or a failure that depends on data or on the host
  'unknown_function',
  'unknown_root',
  'unknown_key',
  'unreachable_node',
  'duplicate_node_id',
  'unknown_node_reference',
  'node_not_upstream',
  'default_target_missing',
  'template_slot_not_parsed',
  'foreign_template_syntax',
  'env_not_exposed',
  'secret_env_exposed',
  'condition_ignored',
  'node_warning',
  'flow_check_failed',
  'analysis_failed',
] as const;

export type IssueCode = (typeof ISSUE_CODES)[number];

export interface FlowIssue {
  severity: IssueSeverity;
  code: IssueCode;
  /** Where in the document, e.g. `nodes[3].childFlow.nodes[1].output`; '' for the whole document. */
  path: string;
  /** The innermost node the path is in (a child flow's node, not the node holding it), or null. */
  nodeId: string | null;
  message: string;
  /** A direct replacement when one is evident: a key, a function or a node id. */
  suggestion?: string;
  /** Parse problems: 1-based column in the string at `path`. */
  column?: number;
}

/** True when any issue is an error: the flow will fail somewhere when run, so do not publish it. */
export function hasErrors(issues: readonly FlowIssue[]): boolean {
  return issues.some((issue) => issue.severity === 'error');
}
