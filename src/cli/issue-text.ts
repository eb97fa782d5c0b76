import type { FlowIssue } from '../flow/analysis/flow-issue.js';

/**
 * One issue as `validate` prints it: severity, code, path and message; the suggestion; and for
 * an expression with a column, the expression with a caret under that column.
 */
export function issueText(issue: FlowIssue, document: unknown): string {
  const lines = [`${issue.severity} ${issue.code} ${issue.path || '(document)'}: ${issue.message}`];
  if (issue.suggestion) lines.push(`  suggestion: ${issue.suggestion}`);
  const text = issue.column === undefined ? undefined : valueAt(document, issue.path);
  if (typeof text === 'string' && !text.includes('\n') && text.length <= 200) {
    lines.push(`  ${text}`, `  ${' '.repeat(Math.max(0, issue.column! - 1))}^`);
  }
  return lines.join('\n');
}

/** The value at a path such as `nodes[1].childFlow.nodes[0].output` (undefined when absent). */
export function valueAt(document: unknown, path: string): unknown {
  let value: unknown = document;
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (typeof value !== 'object' || value === null) return undefined;
    const key = part.startsWith('[') ? Number(part.slice(1, -1)) : part;
    value = Object.hasOwn(value, key)
      ? (value as Record<string | number, unknown>)[key]
      : undefined;
  }
  return value;
}
