import type { FlowDocument } from '../../api/types';
import { nodeOfIssue, type EditorIssue } from './flow-issues';

/** Every issue with its severity, code, node (a button selecting it) and path. */
export function IssuesPanel(props: {
  issues: EditorIssue[] | null;
  validated: boolean;
  doc: FlowDocument | null;
  onSelect: (id: string) => void;
}) {
  const { issues } = props;
  if (issues === null) return null;
  const errors = issues.filter((i) => i.severity === 'error').length;
  const warnings = issues.length - errors;
  return (
    <section aria-labelledby="issues-title" class="issues" data-testid="issues">
      <h2 id="issues-title">
        {issues.length === 0
          ? '✓ No issues'
          : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`}
        {!props.validated ? <span class="muted small"> (validating the latest edit…)</span> : null}
      </h2>
      {issues.length > 0 ? (
        <ul class="issue-list">
          {issues.map((issue, i) => (
            <IssueItem
              key={`${issue.path}-${i}`}
              issue={issue}
              node={nodeOfIssue(issue, props.doc)}
              onSelect={props.onSelect}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function IssueItem(props: {
  issue: EditorIssue;
  node: string | null;
  onSelect: (id: string) => void;
}) {
  const { issue, node } = props;
  return (
    <li class={`issue issue-${issue.severity}`}>
      <span class={`badge badge-${issue.severity === 'error' ? 'failed' : 'waiting'}`}>
        {issue.severity === 'error' ? '✕' : '!'} {issue.severity}
      </span>{' '}
      <code>{issue.code}</code>{' '}
      {node ? (
        <button type="button" class="link-button mono" onClick={() => props.onSelect(node)}>
          {node}
        </button>
      ) : null}{' '}
      <code class="muted">{issue.path || '(document)'}</code>
      <div>
        {issue.message}
        {issue.suggestion ? <span class="muted"> — did you mean “{issue.suggestion}”?</span> : null}
      </div>
    </li>
  );
}
