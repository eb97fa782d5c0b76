import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../../api/client';
import type { FlowVersion } from '../../api/types';
import { notify } from '../../components/notice';
import { idsOf, parseDocument, withVersion } from './document-text';
import { issuesFromProblem } from './flow-issues';
import type { FlowDocumentState } from './use-flow-document';

export interface SaveErrors {
  flowId?: string | undefined;
  version?: string | undefined;
  other?: string | undefined;
}

export interface FlowTarget {
  /** The flow the page is about; null for a new one (its id is typed or taken from the text). */
  flowId: string | null;
  record: FlowVersion | null;
  onSaved: (saved: FlowVersion) => void;
}

/**
 * Saving a draft and publishing it: the id and version to save under (typed, else named by the
 * document), the server's refusals put on their fields or listed as the document's issues.
 */
export function useFlowActions(
  target: FlowTarget,
  document: FlowDocumentState,
  typed: { newId: string; saveAs: string },
) {
  const { record } = target;
  const [errors, setErrors] = useState<SaveErrors>({});
  const [busy, setBusy] = useState(false);

  const save = async () => {
    // The text as it is now, not the parse that follows typing a moment later.
    const now = idsOf(parseDocument(document.text).doc);
    const id = target.flowId ?? (typed.newId.trim() || now.docId);
    const version = typed.saveAs.trim() || (record ? '' : now.docVersion);
    const missing: SaveErrors = {};
    if (!id) missing.flowId = 'A flow id is needed';
    if (!version)
      missing.version =
        record?.status === 'published'
          ? 'A published version is immutable: name a new version'
          : 'A version is needed';
    if (missing.flowId || missing.version) {
      setErrors(missing);
      return;
    }
    setBusy(true);
    setErrors({});
    // "Save as version" from an existing version: the document still names the old one, which
    // the server refuses (the URL and the document must agree), so it is renamed here.
    const body = withVersion(document.text, version);
    if (body !== document.text) document.setText(body);
    try {
      const saved = await api.put<FlowVersion>(
        `/v1/flows/${seg(id)}/versions/${seg(version)}`,
        body,
      );
      notify(`Saved ${id}@${version} as a draft`);
      target.onSaved(saved);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'invalid_flow') {
        document.showIssues(issuesFromProblem(e, document.doc), document.text);
        setErrors({ other: `Not saved: ${e.detail}` });
      } else if (e instanceof ApiError) {
        setErrors({ flowId: e.field('flowId'), version: e.field('version'), other: e.detail });
      } else setErrors({ other: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };

  const publish = async () => {
    if (!record) return;
    const question = `Publish ${record.flowId}@${record.version}? A published version cannot change.`;
    if (!window.confirm(question)) return;
    setBusy(true);
    try {
      const published = await api.post<FlowVersion>(
        `/v1/flows/${seg(record.flowId)}/versions/${seg(record.version)}/publish`,
      );
      notify(`Published ${published.flowId}@${published.version}`);
      target.onSaved(published);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'invalid_flow')
        document.showIssues(issuesFromProblem(e, document.doc));
      setErrors({ other: `Not published: ${messageOf(e)}` });
    } finally {
      setBusy(false);
    }
  };

  return { save, publish, errors, busy, publishWhy: publishWhy(record, document) };
}

/** Why Publish is off ('' when it is on): only a saved, unchanged, validated, clean draft. */
function publishWhy(record: FlowVersion | null, document: FlowDocumentState): string {
  if (!record) return 'save a draft first';
  if (record.status === 'published') return 'already published';
  if (document.text !== JSON.stringify(record.document, null, 2)) return 'save the changes first';
  const hasErrors =
    (document.issues ?? []).some((i) => i.severity === 'error') || document.parseError !== null;
  if (hasErrors) return 'fix the errors first';
  return document.validated ? '' : 'validating…';
}
