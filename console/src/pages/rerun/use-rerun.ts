import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg, withQuery } from '../../api/client';
import type { ExecutionView, RerunDryRun, RerunNode } from '../../api/types';
import { notify } from '../../components/notice';
import { navigate } from '../../router';

/** Where a rerun from one node stands: asked nothing, asking the dry run, shown, started. */
export type RerunStep =
  | { step: 'closed' }
  | { step: 'planning' }
  | { step: 'planned'; willRun: RerunNode[] }
  | { step: 'starting'; willRun: RerunNode[] }
  | { step: 'refused'; message: string };

/**
 * A rerun of `executionId` from `fromNode` in two steps: the dry run first (what runs again),
 * then, once confirmed, the rerun itself, and the new execution's page.
 */
export function useRerun(executionId: string, fromNode: string) {
  const [state, setState] = useState<RerunStep>({ step: 'closed' });
  const path = `/v1/executions/${seg(executionId)}/rerun`;

  const plan = async () => {
    setState({ step: 'planning' });
    try {
      const dry = await api.post<RerunDryRun>(withQuery(path, { dryRun: 'true' }), { fromNode });
      setState({ step: 'planned', willRun: dry.willRun });
    } catch (e) {
      setState({ step: 'refused', message: refusalOf(e) });
    }
  };

  const confirm = async (willRun: RerunNode[]) => {
    setState({ step: 'starting', willRun });
    try {
      const started = await api.post<ExecutionView>(path, { fromNode });
      notify(`Rerun started: ${started.executionId}`);
      navigate(`/executions/${seg(started.executionId)}`);
    } catch (e) {
      setState({ step: 'refused', message: refusalOf(e) });
    }
  };

  return { state, plan, confirm, close: () => setState({ step: 'closed' }) };
}

/** The server's reason in its own words: the one about `fromNode` when it names the field. */
function refusalOf(error: unknown): string {
  if (error instanceof ApiError) return error.field('fromNode') ?? error.detail;
  return messageOf(error);
}
