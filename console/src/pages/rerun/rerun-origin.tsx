import { seg } from '../../api/client';
import type { ExecutionView } from '../../api/types';
import { CopyId } from '../../components/copy-id';

/** A rerun's facts: the execution it reruns (a link) and the node it ran from. */
export function RerunOrigin({ view }: { view: ExecutionView }) {
  if (!view.rerunOf) return null;
  return (
    <>
      <dt>Rerun of</dt>
      <dd>
        <CopyId id={view.rerunOf} href={`/executions/${seg(view.rerunOf)}`} short />
        {view.fromNode ? (
          <>
            {' '}
            from <code>{view.fromNode}</code>
          </>
        ) : null}
      </dd>
    </>
  );
}
