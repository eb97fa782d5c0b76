import { Loading } from '../../components/problem-box';
import { can, useCaller } from '../../session';
import { RerunPlan } from './rerun-plan';
import { useRerun } from './use-rerun';

/**
 * "Rerun from here" for one node that ran, for an operator: the dry run's list first, then a
 * confirm that starts the rerun and opens it; a refusal is shown in the server's words.
 */
export function RerunFromNode({ executionId, nodeId }: { executionId: string; nodeId: string }) {
  const caller = useCaller();
  const { state, plan, confirm, close } = useRerun(executionId, nodeId);
  if (!can(caller, 'operator')) return null;
  const open = state.step !== 'closed';
  return (
    <section class="rerun" aria-label={`Rerun from ${nodeId}`}>
      <button
        type="button"
        class="button small"
        aria-expanded={open}
        disabled={state.step === 'planning' || state.step === 'starting'}
        onClick={() => (open ? close() : void plan())}
      >
        Rerun from here
      </button>
      {state.step === 'planning' ? <Loading label="Asking what would run again" /> : null}
      {state.step === 'refused' ? (
        <p class="problem" role="alert">
          <strong>Cannot rerun from {nodeId}:</strong> {state.message}
        </p>
      ) : null}
      {state.step === 'planned' || state.step === 'starting' ? (
        <div class="rerun-plan">
          <RerunPlan fromNode={nodeId} willRun={state.willRun} />
          <div class="actions">
            <button
              type="button"
              class="button primary"
              disabled={state.step === 'starting'}
              onClick={() => void confirm(state.willRun)}
            >
              Start rerun
            </button>
            <button type="button" class="button ghost" onClick={close}>
              Close
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
