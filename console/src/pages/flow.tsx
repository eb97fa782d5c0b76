import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../api/client';
import type {
  DryRunResult,
  ExecutionView,
  FlowDocument,
  FlowIssue,
  FlowVersion,
  FlowWithVersions,
} from '../api/types';
import { describedBy, Field } from '../components/field';
import { JsonView } from '../components/json-view';
import { notify } from '../components/notice';
import { LoadFailed, Loading, ProblemBox } from '../components/problem-box';
import { StatusBadge } from '../components/status-badge';
import { Time } from '../components/time';
import { formatDuration } from '../format';
import { flowShape } from '../graph/flow-edges';
import { FlowGraph, type NodeState } from '../graph/flow-graph';
import { layoutFlow } from '../graph/layout';
import { navigate, useLocation } from '../router';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

const TEMPLATE = `{
  "nodes": [
    { "type": "start", "id": "start", "next": "greet" },
    { "type": "assignment", "id": "greet", "output": { "message": "Hello {% $INPUT.name %}" }, "next": "end" },
    { "type": "end", "id": "end", "output": { "message": "$NODE.greet.message" } }
  ]
}
`;

/**
 * A flow: its versions (draft / published), the graph and the document side by side, validate
 * (every issue listed with its path and shown on its node), dry-run with input and pinned node
 * outputs, save a draft, publish, start an execution.
 */
export default function FlowPage({ params }: { params: Record<string, string> }) {
  const { query } = useLocation();
  const flowId = params.flowId ?? null;
  useTitle(flowId ? `Flow ${flowId}` : 'New flow');
  const flow = useResource(
    () => (flowId ? api.get<FlowWithVersions>(`/v1/flows/${seg(flowId)}`) : Promise.resolve(null)),
    [flowId],
  );
  const wanted = query.get('version');
  const version = flowId
    ? (wanted ?? flow.data?.latestVersion ?? flow.data?.versions[0]?.version ?? null)
    : null;
  const record = useResource(
    () =>
      flowId && version
        ? api.get<FlowVersion>(`/v1/flows/${seg(flowId)}/versions/${seg(version)}`)
        : Promise.resolve(null),
    [flowId, version],
  );

  if (flow.error)
    return (
      <LoadFailed
        what={`Flow ${flowId ?? ''}`}
        error={flow.error}
        back={{ href: '/flows', label: 'All flows' }}
        retry={flow.reload}
        whenMissing="No version of it was saved here. An execution started from a document (plaita run, an inline start) keeps its own definition: its page shows the graph."
      />
    );
  if (flowId && (flow.loading || record.loading) && !record.data) return <Loading />;
  return (
    <section aria-labelledby="flow-title" class="flow-page">
      <p class="crumbs">
        <a href="/flows">Flows</a> /
      </p>
      <h1 id="flow-title">{flowId ?? 'New flow'}</h1>
      {flow.data ? <Versions flow={flow.data} selected={version} /> : null}
      <ProblemBox error={record.error} title="This version could not be read" />
      <Editor
        key={`${flowId ?? ''}@${version ?? ''}@${record.data?.hash ?? ''}`}
        flowId={flowId}
        record={record.data ?? null}
        onSaved={(saved) => {
          flow.reload();
          record.reload();
          navigate(`/flows/${seg(saved.flowId)}?version=${seg(saved.version)}`, {
            replace: flowId !== null,
          });
        }}
      />
    </section>
  );
}

function Versions({ flow, selected }: { flow: FlowWithVersions; selected: string | null }) {
  return (
    <nav class="versions" aria-label="Versions">
      <ul>
        {flow.versions.map((v) => (
          <li key={v.version}>
            <a
              href={`/flows/${seg(flow.flowId)}?version=${seg(v.version)}`}
              aria-current={v.version === selected ? 'page' : undefined}
            >
              {v.version} <StatusBadge status={v.status} />
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The node an issue sits on: its `nodeId`, else the node its `nodes[i]` path points into. */
function nodeOfIssue(
  issue: { path: string; nodeId?: string | null },
  doc: FlowDocument | null,
): string | null {
  if (issue.nodeId) return issue.nodeId;
  const index = /^(?:body\.)?nodes\[(\d+)\]/.exec(issue.path)?.[1];
  const node = index === undefined ? undefined : doc?.nodes?.[Number(index)];
  return node && typeof node.id === 'string' ? node.id : null;
}

/** 422 `invalid_flow` problems list `{path, message}` with "error code: text" messages. */
function issuesFromProblem(error: ApiError, doc: FlowDocument | null): FlowIssue[] {
  return error.errors.map((e) => {
    const m = /^(error|warning) (\w+): ([\s\S]*)$/.exec(e.message);
    return {
      severity: (m?.[1] as FlowIssue['severity'] | undefined) ?? 'error',
      code: m?.[2] ?? error.code,
      path: e.path,
      nodeId: nodeOfIssue({ path: e.path }, doc),
      message: m?.[3] ?? e.message,
    };
  });
}

function Editor(props: {
  flowId: string | null;
  record: FlowVersion | null;
  onSaved: (saved: FlowVersion) => void;
}) {
  const caller = useCaller();
  const { record } = props;
  const [text, setText] = useState(() =>
    record ? JSON.stringify(record.document, null, 2) : TEMPLATE,
  );
  const [newId, setNewId] = useState(props.flowId ?? '');
  const [saveAs, setSaveAs] = useState(
    record ? (record.status === 'published' ? '' : record.version) : '',
  );
  const [doc, setDoc] = useState<FlowDocument | null>(() => parse(text).doc);
  const [parseError, setParseError] = useState<string | null>(null);
  const [issues, setIssues] = useState<FlowIssue[] | null>(record ? record.issues : null);
  const [validatedText, setValidatedText] = useState<string | null>(record ? text : null);
  const [selected, setSelected] = useState<string | null>(null);
  const [run, setRun] = useState<DryRunResult | null>(null);
  const [saveErrors, setSaveErrors] = useState<{
    flowId?: string | undefined;
    version?: string | undefined;
    other?: string | undefined;
  }>({});
  const [busy, setBusy] = useState(false);

  // Parse as you type (the graph follows), and validate a moment after typing stops.
  useEffect(() => {
    const timer = window.setTimeout(() => {
      const parsed = parse(text);
      setParseError(parsed.error);
      if (parsed.doc) setDoc(parsed.doc);
    }, 150);
    return () => window.clearTimeout(timer);
  }, [text]);
  useEffect(() => {
    if (text === validatedText) return;
    const timer = window.setTimeout(() => void validate(), 700);
    return () => window.clearTimeout(timer);
  }, [text]);

  const layout = useMemo(() => (doc ? layoutFlow(flowShape(doc)) : null), [doc]);
  const issuesByNode = useMemo(() => {
    const map = new Map<string, FlowIssue[]>();
    for (const issue of issues ?? []) {
      const node = nodeOfIssue(issue, doc);
      if (node) map.set(node, [...(map.get(node) ?? []), issue]);
    }
    return map;
  }, [issues, doc]);
  const states = useMemo(() => {
    if (!run) return undefined;
    const map = new Map<string, NodeState>();
    for (const step of run.trace) map.set(step.nodeId, step.status);
    return map;
  }, [run]);

  const validate = async () => {
    const current = text;
    try {
      const result = await api.post<{ valid: boolean; issues: FlowIssue[] }>('/v1/flows/validate', {
        flow: current,
      });
      setIssues(result.issues);
      setValidatedText(current);
    } catch (e) {
      setIssues([
        { severity: 'error', code: 'request', path: '', nodeId: null, message: messageOf(e) },
      ]);
      setValidatedText(current);
    }
  };

  // A new flow takes its id and version from the document unless typed here.
  const idsOf = (d: FlowDocument | null) => ({
    docId: typeof d?.flow_id === 'string' ? d.flow_id : '',
    docVersion: typeof d?.version === 'string' ? d.version : '',
  });
  const { docId, docVersion } = idsOf(doc);
  const flowId = props.flowId ?? (newId.trim() || docId);
  const save = async () => {
    // The text as it is now, not the parse that follows typing a moment later.
    const now = idsOf(parse(text).doc);
    const id = props.flowId ?? (newId.trim() || now.docId);
    const version = saveAs.trim() || (record ? '' : now.docVersion);
    const errors: typeof saveErrors = {};
    if (!id) errors.flowId = 'A flow id is needed';
    if (!version)
      errors.version =
        record?.status === 'published'
          ? 'A published version is immutable: name a new version'
          : 'A version is needed';
    if (errors.flowId || errors.version) {
      setSaveErrors(errors);
      return;
    }
    setBusy(true);
    setSaveErrors({});
    // "Save as version" from an existing version: the document still names the old one, which
    // the server refuses (the URL and the document must agree), so it is renamed here.
    const body = withVersion(text, version);
    if (body !== text) setText(body);
    try {
      const saved = await api.put<FlowVersion>(
        `/v1/flows/${seg(id)}/versions/${seg(version)}`,
        body,
      );
      notify(`Saved ${id}@${version} as a draft`);
      props.onSaved(saved);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'invalid_flow') {
        setIssues(issuesFromProblem(e, doc));
        setValidatedText(text);
        setSaveErrors({ other: `Not saved: ${e.detail}` });
      } else if (e instanceof ApiError) {
        setSaveErrors({ flowId: e.field('flowId'), version: e.field('version'), other: e.detail });
      } else setSaveErrors({ other: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };

  const publish = async () => {
    if (!record) return;
    if (
      !window.confirm(
        `Publish ${record.flowId}@${record.version}? A published version cannot change.`,
      )
    )
      return;
    setBusy(true);
    try {
      const published = await api.post<FlowVersion>(
        `/v1/flows/${seg(record.flowId)}/versions/${seg(record.version)}/publish`,
      );
      notify(`Published ${published.flowId}@${published.version}`);
      props.onSaved(published);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'invalid_flow') setIssues(issuesFromProblem(e, doc));
      setSaveErrors({ other: `Not published: ${messageOf(e)}` });
    } finally {
      setBusy(false);
    }
  };

  const dirty = record ? text !== JSON.stringify(record.document, null, 2) : true;
  const hasErrors = (issues ?? []).some((i) => i.severity === 'error') || parseError !== null;
  const validated = validatedText === text;
  const publishBlocked =
    !record || record.status === 'published' || dirty || hasErrors || !validated;
  const publishWhy = !record
    ? 'save a draft first'
    : record.status === 'published'
      ? 'already published'
      : dirty
        ? 'save the changes first'
        : hasErrors
          ? 'fix the errors first'
          : !validated
            ? 'validating…'
            : '';
  const admin = can(caller, 'admin');

  return (
    <>
      <div class="toolbar" role="toolbar" aria-label="Flow actions">
        {!props.flowId ? (
          <Field id="flow-id" label="Flow id" error={saveErrors.flowId}>
            <input
              {...describedBy('flow-id', saveErrors.flowId)}
              value={newId}
              placeholder={docId || 'e.g. orders'}
              onInput={(e) => setNewId(e.currentTarget.value)}
            />
          </Field>
        ) : null}
        {admin ? (
          <Field
            id="flow-version"
            label={record?.status === 'published' ? 'Save as version' : 'Version'}
            error={saveErrors.version}
          >
            <input
              {...describedBy('flow-version', saveErrors.version)}
              value={saveAs}
              placeholder={
                record?.status === 'published' ? 'a new version' : docVersion || 'e.g. 1'
              }
              onInput={(e) => setSaveAs(e.currentTarget.value)}
            />
          </Field>
        ) : null}
        <div class="actions">
          <button type="button" class="button" onClick={() => void validate()}>
            Validate
          </button>
          {admin ? (
            <button type="button" class="button" disabled={busy} onClick={() => void save()}>
              Save draft
            </button>
          ) : null}
          {admin && record ? (
            <button
              type="button"
              class="button primary"
              disabled={busy || publishBlocked}
              aria-describedby={publishWhy ? 'publish-why' : undefined}
              onClick={() => void publish()}
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
      </div>
      {saveErrors.other ? (
        <p class="field-error" role="alert">
          {saveErrors.other}
        </p>
      ) : null}
      {record ? (
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
      ) : null}
      <div class="split editor-split">
        <div class="split-main">
          <h2>Graph</h2>
          {layout ? (
            <FlowGraph
              layout={layout}
              label={`Graph of ${flowId || 'the flow'}${issues?.length ? ', nodes with issues outlined' : ''}`}
              issues={issuesByNode}
              {...(states ? { states } : {})}
              selected={selected}
              onSelect={setSelected}
            />
          ) : (
            <p class="muted">The document is not a flow yet.</p>
          )}
        </div>
        <div class="split-side">
          <Field id="flow-doc" label="Document (JSON)" error={parseError ?? undefined}>
            <textarea
              {...describedBy('flow-doc', parseError ?? undefined)}
              class="code doc-editor"
              spellcheck={false}
              readOnly={!admin && !can(caller, 'operator')}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </Field>
        </div>
      </div>
      <Issues issues={issues} validated={validated} doc={doc} onSelect={setSelected} />
      {can(caller, 'operator') ? <DryRun text={text} onResult={setRun} result={run} /> : null}
      {can(caller, 'operator') && record?.status === 'published' ? <Start record={record} /> : null}
    </>
  );
}

function parse(text: string): { doc: FlowDocument | null; error: string | null } {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return { doc: null, error: 'The document must be a JSON object' };
    return { doc: value as FlowDocument, error: null };
  } catch (e) {
    return { doc: null, error: `Not JSON: ${messageOf(e)}` };
  }
}

function Issues(props: {
  issues: FlowIssue[] | null;
  validated: boolean;
  doc: FlowDocument | null;
  onSelect: (id: string) => void;
}) {
  const { issues } = props;
  if (issues === null) return null;
  const errors = issues.filter((i) => i.severity === 'error').length;
  return (
    <section aria-labelledby="issues-title" class="issues" data-testid="issues">
      <h2 id="issues-title">
        {issues.length === 0
          ? '✓ No issues'
          : `${errors} error${errors === 1 ? '' : 's'}, ${issues.length - errors} warning${issues.length - errors === 1 ? '' : 's'}`}
        {!props.validated ? <span class="muted small"> (validating the latest edit…)</span> : null}
      </h2>
      {issues.length > 0 ? (
        <ul class="issue-list">
          {issues.map((issue, i) => {
            const node = nodeOfIssue(issue, props.doc);
            return (
              <li key={`${issue.path}-${i}`} class={`issue issue-${issue.severity}`}>
                <span class={`badge badge-${issue.severity === 'error' ? 'failed' : 'waiting'}`}>
                  {issue.severity === 'error' ? '✕' : '!'} {issue.severity}
                </span>{' '}
                <code>{issue.code}</code>{' '}
                {node ? (
                  <button
                    type="button"
                    class="link-button mono"
                    onClick={() => props.onSelect(node)}
                  >
                    {node}
                  </button>
                ) : null}{' '}
                <code class="muted">{issue.path || '(document)'}</code>
                <div>
                  {issue.message}
                  {issue.suggestion ? (
                    <span class="muted"> — did you mean “{issue.suggestion}”?</span>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

function jsonObject(text: string, what: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: not JSON (${messageOf(e)})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what}: a JSON object is needed`);
  return value as Record<string, unknown>;
}

function DryRun(props: {
  text: string;
  result: DryRunResult | null;
  onResult: (r: DryRunResult | null) => void;
}) {
  const [input, setInput] = useState('{}');
  const [pinned, setPinned] = useState('{}');
  const [errors, setErrors] = useState<{
    input?: string | undefined;
    pinned?: string | undefined;
    other?: string | undefined;
  }>({});
  const [busy, setBusy] = useState(false);
  const go = async (event: Event) => {
    event.preventDefault();
    let body: Record<string, unknown>;
    try {
      body = { flow: props.text, input: jsonObject(input, 'Input') };
    } catch (e) {
      setErrors({ input: messageOf(e) });
      return;
    }
    try {
      const pins = jsonObject(pinned, 'Pinned outputs');
      if (Object.keys(pins).length) body.pinned = pins;
    } catch (e) {
      setErrors({ pinned: messageOf(e) });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      props.onResult(await api.post<DryRunResult>('/v1/flows/dry-run', body));
    } catch (e) {
      if (e instanceof ApiError)
        setErrors({ input: e.field('input'), pinned: e.field('pinned'), other: e.detail });
      else setErrors({ other: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };
  const r = props.result;
  return (
    <details class="card dry-run">
      <summary>Dry run</summary>
      <form onSubmit={(e) => void go(e)} class="grid-2">
        <Field id="dry-input" label="Dry-run input (JSON)" error={errors.input}>
          <textarea
            {...describedBy('dry-input', errors.input)}
            class="code"
            rows={5}
            spellcheck={false}
            value={input}
            onInput={(e) => setInput(e.currentTarget.value)}
          />
        </Field>
        <Field
          id="dry-pinned"
          label="Pinned node outputs ({ nodeId: output })"
          error={errors.pinned}
        >
          <textarea
            {...describedBy('dry-pinned', errors.pinned)}
            class="code"
            rows={5}
            spellcheck={false}
            value={pinned}
            onInput={(e) => setPinned(e.currentTarget.value)}
          />
        </Field>
        <div class="actions">
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? 'Running…' : 'Run (nothing is stored)'}
          </button>
          {r ? (
            <button type="button" class="button ghost" onClick={() => props.onResult(null)}>
              Clear the run
            </button>
          ) : null}
        </div>
      </form>
      {errors.other && !errors.input && !errors.pinned ? (
        <p class="field-error" role="alert">
          {errors.other}
        </p>
      ) : null}
      {r ? (
        <div class="dry-result" role="status">
          <p>
            Run <StatusBadge status={r.status === 'error' ? 'error' : r.status} />
            {r.error ? (
              <span class="error-text">
                {' '}
                {r.error.nodeId ? `${r.error.nodeId}: ` : ''}
                {r.error.message}
              </span>
            ) : null}
            {r.waiting ? (
              <span>
                {' '}
                waits at {r.waiting.nodeId} for {r.waiting.eventType}
              </span>
            ) : null}
          </p>
          <table class="data" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">
                  Node
                </th>
                <th scope="col" role="columnheader">
                  Status
                </th>
                <th scope="col" role="columnheader" class="num">
                  Duration
                </th>
                <th scope="col" role="columnheader">
                  Output
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {r.trace.map((step, i) => (
                <tr role="row" key={`${step.nodeId}-${i}`}>
                  <td role="cell" data-label="Node" class="mono">
                    {step.nodeId}
                  </td>
                  <td role="cell" data-label="Status">
                    <StatusBadge status={step.status} />
                  </td>
                  <td role="cell" data-label="Duration" class="num">
                    {formatDuration(step.durationMs)}
                  </td>
                  <td role="cell" data-label="Output">
                    <JsonView
                      value={step.output}
                      label={`dry-run output of ${step.nodeId}`}
                      openDepth={0}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {r.result !== undefined ? <JsonView value={r.result} label="dry-run result" /> : null}
        </div>
      ) : null}
    </details>
  );
}

function Start({ record }: { record: FlowVersion }) {
  const [input, setInput] = useState('{}');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const start = async (event: Event) => {
    event.preventDefault();
    let body: Record<string, unknown>;
    try {
      body = { flowId: record.flowId, version: record.version, input: jsonObject(input, 'Input') };
    } catch (e) {
      setError(messageOf(e));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const started = await api.post<ExecutionView>('/v1/executions', body);
      notify(`Started ${started.executionId}`);
      navigate(`/executions/${seg(started.executionId)}`);
    } catch (e) {
      setError(e instanceof ApiError ? (e.field('input') ?? e.detail) : messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="card start" open>
      <summary>Start an execution of {record.version}</summary>
      <form onSubmit={(e) => void start(e)}>
        <Field id="start-input" label="Input (JSON)" error={error}>
          <textarea
            {...describedBy('start-input', error)}
            class="code"
            rows={6}
            spellcheck={false}
            value={input}
            onInput={(e) => setInput(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="button primary" disabled={busy}>
          Start execution
        </button>
      </form>
    </details>
  );
}

/** The JSON document with its `version` set to `version` when it names another; else as is. */
function withVersion(text: string, version: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text; // YAML, or not parsable: the server says what is wrong
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return text;
  const document = value as Record<string, unknown>;
  const named = document.version;
  if (named === undefined) return text;
  if ((typeof named === 'string' || typeof named === 'number') && String(named) === version)
    return text;
  return JSON.stringify({ ...document, version }, null, 2);
}
