import { api, seg } from '../api/client';
import type { FlowVersion, FlowWithVersions } from '../api/types';
import { LoadFailed, Loading, ProblemBox } from '../components/problem-box';
import { StatusBadge } from '../components/status-badge';
import { navigate, useLocation } from '../router';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';
import { Editor } from './flow-editor/editor';

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
