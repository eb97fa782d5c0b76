import type { FlowVersion } from '../../api/types';
import { describedBy, Field } from '../../components/field';
import { Time } from '../../components/time';
import type { SaveErrors } from './use-flow-actions';

export interface EditorToolbarProps {
  /** The page's flow; null: a new flow, whose id is typed here. */
  flowId: string | null;
  record: FlowVersion | null;
  admin: boolean;
  newId: string;
  onNewId: (id: string) => void;
  saveAs: string;
  onSaveAs: (version: string) => void;
  /** What the document names, shown as the fields' placeholders. */
  docId: string;
  docVersion: string;
  errors: SaveErrors;
  busy: boolean;
  publishWhy: string;
  onValidate: () => void;
  onSave: () => void;
  onPublish: () => void;
}

/** The flow's actions: the id and version to save under, Validate, Save draft, Publish. */
export function EditorToolbar(props: EditorToolbarProps) {
  const { record, admin, errors } = props;
  const published = record?.status === 'published';
  return (
    <>
      <div class="toolbar" role="toolbar" aria-label="Flow actions">
        {!props.flowId ? (
          <Field id="flow-id" label="Flow id" error={errors.flowId}>
            <input
              {...describedBy('flow-id', errors.flowId)}
              value={props.newId}
              placeholder={props.docId || 'e.g. orders'}
              onInput={(e) => props.onNewId(e.currentTarget.value)}
            />
          </Field>
        ) : null}
        {admin ? (
          <Field
            id="flow-version"
            label={published ? 'Save as version' : 'Version'}
            error={errors.version}
          >
            <input
              {...describedBy('flow-version', errors.version)}
              value={props.saveAs}
              placeholder={published ? 'a new version' : props.docVersion || 'e.g. 1'}
              onInput={(e) => props.onSaveAs(e.currentTarget.value)}
            />
          </Field>
        ) : null}
        <Actions {...props} />
      </div>
      {errors.other ? (
        <p class="field-error" role="alert">
          {errors.other}
        </p>
      ) : null}
      {record ? <SavedLine record={record} /> : null}
    </>
  );
}

function Actions(props: EditorToolbarProps) {
  const { admin, record, busy, publishWhy } = props;
  return (
    <div class="actions">
      <button type="button" class="button" onClick={props.onValidate}>
        Validate
      </button>
      {admin ? (
        <button type="button" class="button" disabled={busy} onClick={props.onSave}>
          Save draft
        </button>
      ) : null}
      {admin && record ? (
        <button
          type="button"
          class="button primary"
          disabled={busy || publishWhy !== ''}
          aria-describedby={publishWhy ? 'publish-why' : undefined}
          onClick={props.onPublish}
        >
          Publish
        </button>
      ) : null}
      {publishWhy && admin && record ? (
        <span id="publish-why" class="muted small">
          {publishWhy}
        </span>
      ) : null}
    </div>
  );
}

/** When the version was saved or published, and its content hash. */
function SavedLine({ record }: { record: FlowVersion }) {
  return (
    <p class="muted small">
      {record.status === 'published' ? (
        <>
          Published <Time iso={record.publishedAt} />
        </>
      ) : (
        <>
          Draft, saved <Time iso={record.updatedAt} />
        </>
      )}{' '}
      · hash <code>{record.hash.slice(0, 12)}</code>
    </p>
  );
}
