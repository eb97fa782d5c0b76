import { seg } from '../../api/client';
import type { Schedule } from '../../api/types';
import { Time } from '../../components/time';
import { navigate } from '../../router';
import { ScheduleActions } from './schedule-actions';

/** An existing schedule's runs and actions, above its form: what the list row shows. */
export function ScheduleStatus({ schedule, reload }: { schedule: Schedule; reload: () => void }) {
  return (
    <div class="card schedule-status" aria-label="Runs">
      <dl class="facts facts-row">
        <dt>Next run</dt>
        <dd>{schedule.enabled ? <Time iso={schedule.nextRunAt} /> : 'off (disabled)'}</dd>
        <dt>Last run</dt>
        <dd>
          <Time iso={schedule.lastRunAt} />
          {schedule.lastExecutionId ? (
            <>
              {' '}
              <a href={`/executions/${seg(schedule.lastExecutionId)}`}>open the execution</a>
            </>
          ) : null}
          {schedule.lastError ? <div class="error-text small">{schedule.lastError}</div> : null}
        </dd>
      </dl>
      <div class="row-actions">
        <ScheduleActions
          schedule={schedule}
          onFired={reload}
          onDeleted={() => navigate('/schedules', { replace: true })}
        />
      </div>
    </div>
  );
}
