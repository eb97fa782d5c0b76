import type { DryRunResult } from '../../api/types';
import { JsonView } from '../../components/json-view';
import { StatusBadge } from '../../components/status-badge';
import { formatDuration } from '../../format';

/** How a dry run went: its status, where it failed or waits, each node's output, the result. */
export function DryRunOutcome({ result: r }: { result: DryRunResult }) {
  return (
    <div class="dry-result" role="status">
      <p>
        Run <StatusBadge status={r.status === 'error' ? 'error' : r.status} />
        {r.error ? (
          <span class="error-text">
            {' '}
            {r.error.nodeId ? `${r.error.nodeId}: ` : ''}
            {r.error.message}
          </span>
        ) : null}
        {r.waiting ? (
          <span>
            {' '}
            waits at {r.waiting.nodeId} for {r.waiting.eventType}
          </span>
        ) : null}
      </p>
      <TraceTable trace={r.trace} />
      {r.result !== undefined ? <JsonView value={r.result} label="dry-run result" /> : null}
    </div>
  );
}

function TraceTable({ trace }: { trace: DryRunResult['trace'] }) {
  return (
    <table class="data" role="table">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">
            Node
          </th>
          <th scope="col" role="columnheader">
            Status
          </th>
          <th scope="col" role="columnheader" class="num">
            Duration
          </th>
          <th scope="col" role="columnheader">
            Output
          </th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        {trace.map((step, i) => (
          <tr role="row" key={`${step.nodeId}-${i}`}>
            <td role="cell" data-label="Node" class="mono">
              {step.nodeId}
            </td>
            <td role="cell" data-label="Status">
              <StatusBadge status={step.status} />
            </td>
            <td role="cell" data-label="Duration" class="num">
              {formatDuration(step.durationMs)}
            </td>
            <td role="cell" data-label="Output">
              <JsonView
                value={step.output}
                label={`dry-run output of ${step.nodeId}`}
                openDepth={0}
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
