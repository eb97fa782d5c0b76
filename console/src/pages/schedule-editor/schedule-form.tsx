import type { FlowSummary } from '../../api/types';
import { describedBy, Field } from '../../components/field';
import type { Draft, DraftErrors } from './schedule-draft';

export interface ScheduleFormProps {
  /** The schedule's id; null while it is being created. */
  id: string | null;
  draft: Draft;
  onChange: (changes: Partial<Draft>) => void;
  /** The save's refusals, and the preview's word on the cron and time zone. */
  errors: DraftErrors;
  cronError: string | undefined;
  tzError: string | undefined;
  /** The tenant's flows, offered as the flow id is typed. */
  flows: readonly FlowSummary[];
  readOnly: boolean;
  busy: boolean;
  onSubmit: () => void;
}

/** The schedule's fields, and Save / Create for admins. */
export function ScheduleForm(props: ScheduleFormProps) {
  const { draft, errors, readOnly, onChange: set } = props;
  return (
    <form
      class="card form-grid split-main"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
      aria-label="Schedule"
    >
      <Field id="sch-flow" label="Flow id" error={errors.flowId}>
        <input
          {...describedBy('sch-flow', errors.flowId)}
          list="sch-flows"
          required
          value={draft.flowId}
          readOnly={readOnly}
          onInput={(e) => set({ flowId: e.currentTarget.value })}
        />
        <datalist id="sch-flows">
          {props.flows.map((f) => (
            <option key={f.flowId} value={f.flowId} />
          ))}
        </datalist>
      </Field>
      <Field id="sch-version" label="Version (empty: the latest published)" error={errors.version}>
        <input
          {...describedBy('sch-version', errors.version)}
          value={draft.version}
          readOnly={readOnly}
          onInput={(e) => set({ version: e.currentTarget.value })}
        />
      </Field>
      <WhenFields {...props} />
      <Field id="sch-input" label="Input (JSON object)" error={errors.input}>
        <textarea
          {...describedBy('sch-input', errors.input)}
          class="code"
          rows={5}
          spellcheck={false}
          value={draft.input}
          readOnly={readOnly}
          onInput={(e) => set({ input: e.currentTarget.value })}
        />
      </Field>
      <RunFields {...props} />
      {errors.other ? (
        <p class="field-error" role="alert">
          {errors.other}
        </p>
      ) : null}
      {!readOnly ? (
        <div class="actions">
          <button type="submit" class="button primary" disabled={props.busy}>
            {props.id ? 'Save' : 'Create schedule'}
          </button>
          <a class="button ghost" href="/schedules">
            Back to the list
          </a>
        </div>
      ) : null}
    </form>
  );
}

/** When it fires: the cron and its time zone (the zones the browser knows are offered). */
function WhenFields({ draft, readOnly, onChange: set, cronError, tzError }: ScheduleFormProps) {
  return (
    <>
      <Field id="sch-cron" label="Cron (5 or 6 fields)" error={cronError}>
        <input
          {...describedBy('sch-cron', cronError)}
          class="mono"
          required
          value={draft.cron}
          readOnly={readOnly}
          onInput={(e) => set({ cron: e.currentTarget.value })}
        />
      </Field>
      <Field id="sch-tz" label="Time zone (IANA)" error={tzError}>
        <input
          {...describedBy('sch-tz', tzError)}
          list="sch-zones"
          value={draft.timezone}
          readOnly={readOnly}
          onInput={(e) => set({ timezone: e.currentTarget.value })}
        />
        <datalist id="sch-zones">
          {supportedZones().map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      </Field>
    </>
  );
}

/** How it runs: the overlap policy and whether it is enabled. */
function RunFields({ draft, readOnly, onChange: set }: ScheduleFormProps) {
  return (
    <>
      <Field id="sch-overlap" label="When the last run has not settled">
        <select
          id="sch-overlap"
          value={draft.overlap}
          disabled={readOnly}
          onChange={(e) => set({ overlap: e.currentTarget.value as Draft['overlap'] })}
        >
          <option value="allow">start anyway (allow)</option>
          <option value="skip">skip the slot (skip)</option>
        </select>
      </Field>
      <label class="inline-check">
        <input
          type="checkbox"
          checked={draft.enabled}
          disabled={readOnly}
          onChange={(e) => set({ enabled: e.currentTarget.checked })}
        />
        Enabled
      </label>
    </>
  );
}

function supportedZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf ? ['UTC', ...intl.supportedValuesOf('timeZone')] : ['UTC'];
  } catch {
    return ['UTC'];
  }
}
