import type { RerunNode } from '../../api/types';
import { EffectMark } from '../../components/effect-mark';

/**
 * What a rerun runs again, in order, each effectful node marked in words and with the bolt of
 * the graph: an operator sees that an HTTP call or code runs again before confirming.
 */
export function RerunPlan({ fromNode, willRun }: { fromNode: string; willRun: RerunNode[] }) {
  const effectful = willRun.filter((node) => node.effectful);
  return (
    <>
      <p class="small">
        A new execution keeps the results of the nodes before <code>{fromNode}</code> and runs these
        again:
      </p>
      {effectful.length > 0 ? (
        <p class="effect-warning">
          <EffectMark /> {effectWarning(effectful)}
        </p>
      ) : (
        <p class="muted small">None of them is effectful: they are only computed again.</p>
      )}
      <ol class="will-run" aria-label="Nodes that run again">
        {willRun.map((node) => (
          <li
            key={node.nodeId}
            data-node-id={node.nodeId}
            data-effectful={node.effectful ? 'true' : undefined}
          >
            <code>{node.nodeId}</code> <span class="muted">{node.type}</span>
            {node.effectful ? (
              <span class="effect-tag">
                {' '}
                <EffectMark /> effectful
              </span>
            ) : null}
          </li>
        ))}
      </ol>
    </>
  );
}

/** "2 effectful nodes (call, notify) act on the world again." */
function effectWarning(effectful: RerunNode[]): string {
  const ids = effectful.map((node) => node.nodeId).join(', ');
  return effectful.length === 1
    ? `1 effectful node (${ids}) acts on the world again.`
    : `${effectful.length} effectful nodes (${ids}) act on the world again.`;
}
