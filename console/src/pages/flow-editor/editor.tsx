import { useState } from 'preact/hooks';
import type { DryRunResult } from '../../api/types';
import { describedBy, Field } from '../../components/field';
import { can, useCaller } from '../../session';
import { idsOf } from './document-text';
import { DryRunPanel } from './dry-run-panel';
import { EditorToolbar } from './editor-toolbar';
import { GraphPane } from './graph-pane';
import { IssuesPanel } from './issues-panel';
import { StartPanel } from './start-panel';
import { useFlowActions, type FlowTarget } from './use-flow-actions';
import { useFlowDocument } from './use-flow-document';

/**
 * A version's document (or a new flow's) being edited: the toolbar, the server's graph beside
 * the text, the issues, a dry run, and a start once it is published.
 */
export function Editor(props: FlowTarget) {
  const caller = useCaller();
  const admin = can(caller, 'admin');
  const operator = can(caller, 'operator');
  const { record } = props;
  const document = useFlowDocument(record);
  const [newId, setNewId] = useState(props.flowId ?? '');
  const [saveAs, setSaveAs] = useState(
    record ? (record.status === 'published' ? '' : record.version) : '',
  );
  const actions = useFlowActions(props, document, { newId, saveAs });
  const [selected, setSelected] = useState<string | null>(null);
  const [run, setRun] = useState<DryRunResult | null>(null);
  // A new flow takes its id and version from the document unless typed here.
  const { docId, docVersion } = idsOf(document.doc);
  const flowId = props.flowId ?? (newId.trim() || docId);

  return (
    <>
      <EditorToolbar
        flowId={props.flowId}
        record={record}
        admin={admin}
        newId={newId}
        onNewId={setNewId}
        saveAs={saveAs}
        onSaveAs={setSaveAs}
        docId={docId}
        docVersion={docVersion}
        errors={actions.errors}
        busy={actions.busy}
        publishWhy={actions.publishWhy}
        onValidate={() => void document.validate()}
        onSave={() => void actions.save()}
        onPublish={() => void actions.publish()}
      />
      <div class="split editor-split">
        <GraphPane
          graph={document.graph}
          issues={document.issues}
          doc={document.doc}
          run={run}
          flowId={flowId}
          selected={selected}
          onSelect={setSelected}
        />
        <div class="split-side">
          <DocumentField
            text={document.text}
            error={document.parseError}
            readOnly={!admin && !operator}
            onText={document.setText}
          />
        </div>
      </div>
      <IssuesPanel
        issues={document.issues}
        validated={document.validated}
        doc={document.doc}
        onSelect={setSelected}
      />
      {operator ? <DryRunPanel text={document.text} onResult={setRun} result={run} /> : null}
      {operator && record?.status === 'published' ? <StartPanel record={record} /> : null}
    </>
  );
}

function DocumentField(props: {
  text: string;
  error: string | null;
  readOnly: boolean;
  onText: (text: string) => void;
}) {
  const error = props.error ?? undefined;
  return (
    <Field id="flow-doc" label="Document (JSON)" error={error}>
      <textarea
        {...describedBy('flow-doc', error)}
        class="code doc-editor"
        spellcheck={false}
        readOnly={props.readOnly}
        value={props.text}
        onInput={(e) => props.onText(e.currentTarget.value)}
      />
    </Field>
  );
}
