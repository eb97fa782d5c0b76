import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../../api/client';
import type { ExecutionView, FlowVersion } from '../../api/types';
import { describedBy, Field } from '../../components/field';
import { notify } from '../../components/notice';
import { navigate } from '../../router';
import { jsonObject } from './document-text';

/** Starts an execution of a published version with the input typed, then opens it. */
export function StartPanel({ record }: { record: FlowVersion }) {
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
