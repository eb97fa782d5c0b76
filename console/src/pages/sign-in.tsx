import { useState } from 'preact/hooks';
import { api, ApiError, messageOf } from '../api/client';
import { describedBy, Field } from '../components/field';
import { useTitle } from '../use-title';

/**
 * Sign-in: the API key is exchanged for an HttpOnly session cookie (`POST /v1/sessions`) and
 * forgotten — it is never written to localStorage or anywhere the page could read it back.
 */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Sign in');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.post('/v1/sessions', { apiKey: key.trim() });
      setKey('');
      onSignedIn();
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401
          ? 'That API key is unknown or revoked.'
          : messageOf(e),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin-page" id="main">
      <form class="card signin" onSubmit={(e) => void submit(e)}>
        <h1>
          <span class="brand-mark" aria-hidden="true">
            ◆
          </span>{' '}
          plaita console
        </h1>
        <p class="muted">
          Sign in with an API key (<code>plt_…</code>). The first start of <code>plaita serve</code>{' '}
          printed one; <code>plaita keys create</code> makes more. The key is exchanged for a
          session cookie and not kept by the browser.
        </p>
        <Field id="api-key" label="API key" error={error}>
          <input
            {...describedBy('api-key', error)}
            type="password"
            name="apiKey"
            autoComplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(e) => {
              setKey(e.currentTarget.value);
              setError(undefined); // the refusal was of the key that was there
            }}
          />
        </Field>
        <button type="submit" class="button primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
