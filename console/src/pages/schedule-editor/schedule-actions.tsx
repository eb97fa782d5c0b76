import { api, messageOf, seg } from '../../api/client';
import type { ExecutionView, Schedule } from '../../api/types';
import { notify } from '../../components/notice';
import { can, useCaller } from '../../session';

/**
 * Fire now (operators) and Delete (admins, once confirmed): a list row's and a schedule's own
 * page alike; each calls back once it is done.
 */
export function ScheduleActions(props: {
  schedule: Schedule;
  onFired: () => void;
  onDeleted: () => void;
}) {
  const caller = useCaller();
  const { schedule } = props;
  const fire = async () => {
    try {
      const started = await api.post<ExecutionView>(`/v1/schedules/${seg(schedule.id)}/trigger`);
      notify(`Fired: ${started.executionId}`);
      props.onFired();
    } catch (e) {
      notify(messageOf(e), 'error');
    }
  };
  const remove = async () => {
    if (!window.confirm(`Delete the schedule of ${schedule.flowId} (${schedule.cron})?`)) return;
    try {
      await api.delete(`/v1/schedules/${seg(schedule.id)}`);
      props.onDeleted();
    } catch (e) {
      notify(messageOf(e), 'error');
    }
  };
  return (
    <>
      {can(caller, 'operator') ? (
        <button
          type="button"
          class="button small"
          onClick={() => void fire()}
          aria-label={`Fire now: ${schedule.flowId} (${schedule.cron})`}
        >
          Fire now
        </button>
      ) : null}
      {can(caller, 'admin') ? (
        <button
          type="button"
          class="button small ghost"
          onClick={() => void remove()}
          aria-label={`Delete the schedule of ${schedule.flowId}`}
        >
          Delete
        </button>
      ) : null}
    </>
  );
}
