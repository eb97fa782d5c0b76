import { useState } from 'preact/hooks';
import { api, ApiError, messageOf } from '../../api/client';
import type { DryRunResult } from '../../api/types';
import { describedBy, Field } from '../../components/field';
import { jsonObject } from './document-text';
import { DryRunOutcome } from './dry-run-result';

interface DryRunErrors {
  input?: string | undefined;
  pinned?: string | undefined;
  other?: string | undefined;
}

/** Runs the document as typed with an input and pinned node outputs; nothing is stored. */
export function DryRunPanel(props: {
  text: string;
  result: DryRunResult | null;
  onResult: (r: DryRunResult | null) => void;
}) {
  const [input, setInput] = useState('{}');
  const [pinned, setPinned] = useState('{}');
  const [errors, setErrors] = useState<DryRunErrors>({});
  const [busy, setBusy] = useState(false);
  const go = async (event: Event) => {
    event.preventDefault();
    const body = requestBody(props.text, input, pinned);
    if ('errors' in body) {
      setErrors(body.errors);
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      props.onResult(await api.post<DryRunResult>('/v1/flows/dry-run', body.body));
    } catch (e) {
      if (e instanceof ApiError)
        setErrors({ input: e.field('input'), pinned: e.field('pinned'), other: e.detail });
      else setErrors({ other: messageOf(e) });
    } finally {
      setBusy(false);
    }
  };
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
          {props.result ? (
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
      {props.result ? <DryRunOutcome result={props.result} /> : null}
    </details>
  );
}

/** The request, or what is wrong with the fields (each on its own field). */
function requestBody(
  text: string,
  input: string,
  pinned: string,
): { body: Record<string, unknown> } | { errors: DryRunErrors } {
  let body: Record<string, unknown>;
  try {
    body = { flow: text, input: jsonObject(input, 'Input') };
  } catch (e) {
    return { errors: { input: messageOf(e) } };
  }
  try {
    const pins = jsonObject(pinned, 'Pinned outputs');
    if (Object.keys(pins).length) body.pinned = pins;
  } catch (e) {
    return { errors: { pinned: messageOf(e) } };
  }
  return { body };
}
