import { api, ApiError } from '../../api/client';
import type { FlowSummary, Page } from '../../api/types';
import { CopyId } from '../../components/copy-id';
import { Loading, ProblemBox } from '../../components/problem-box';
import { can, useCaller } from '../../session';
import { useResource } from '../../use-resource';
import { CronPreview } from './cron-preview';
import type { DraftErrors } from './schedule-draft';
import { ScheduleForm } from './schedule-form';
import { ScheduleStatus } from './schedule-status';
import { useCronPreview } from './use-cron-preview';
import { useScheduleDraft } from './use-schedule-draft';
import { useScheduleSave } from './use-schedule-save';

/**
 * A schedule's page (`id`) or a new one's (null): its runs and actions, the form, and the next
 * five fire times of the cron as it is typed.
 */
export function ScheduleEditor({ id }: { id: string | null }) {
  const caller = useCaller();
  const { draft, setDraft, stored, setStored, loadError, reload } = useScheduleDraft(id);
  // The runs panel shows what was saved (next run, enabled).
  const { save, errors, busy } = useScheduleSave(id, setStored);
  const flows = useResource(() => api.get<Page<FlowSummary>>('/v1/flows', { limit: 200 }), []);
  const preview = useCronPreview(draft?.cron ?? '', draft?.timezone ?? 'UTC');
  if (loadError) return <ProblemBox error={loadError} title={`Schedule ${id ?? ''}`} />;
  if (!draft) return <Loading />;
  const { cronError, tzError } = whenErrors(errors, preview.error);
  return (
    <section aria-labelledby="schedule-title">
      <p class="crumbs">
        <a href="/schedules">Schedules</a> /
      </p>
      <h1 id="schedule-title">{id ? 'Edit schedule' : 'New schedule'}</h1>
      {id ? (
        <p>
          <CopyId id={id} />
        </p>
      ) : null}
      {stored ? <ScheduleStatus schedule={stored} reload={reload} /> : null}
      <div class="split">
        <ScheduleForm
          id={id}
          draft={draft}
          onChange={(changes) => setDraft({ ...draft, ...changes })}
          errors={errors}
          cronError={cronError}
          tzError={tzError}
          flows={flows.data?.items ?? []}
          readOnly={!can(caller, 'admin')}
          busy={busy}
          onSubmit={() => void save(draft)}
        />
        <CronPreview times={preview.times} error={preview.error} />
      </div>
    </section>
  );
}

/** The cron's and the zone's messages: the save's refusal, else what the preview said. */
function whenErrors(errors: DraftErrors, previewError: unknown) {
  const problem = previewError instanceof ApiError ? previewError : null;
  const previewTz = problem?.field('timezone');
  return {
    cronError:
      errors.cron ??
      (problem && !previewTz ? (problem.field('cron') ?? problem.detail) : undefined),
    tzError: errors.timezone ?? (previewTz ? `${problem?.detail ?? ''}` : undefined),
  };
}
