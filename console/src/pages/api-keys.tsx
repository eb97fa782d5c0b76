import { useState } from 'preact/hooks';
import { api, ApiError, messageOf, seg } from '../api/client';
import type { ApiKey, Role } from '../api/types';
import { CopyId } from '../components/copy-id';
import { describedBy, Field } from '../components/field';
import { notify } from '../components/notice';
import { Loading, ProblemBox } from '../components/problem-box';
import { Time } from '../components/time';
import { can, useCaller } from '../session';
import { useResource } from '../use-resource';
import { useTitle } from '../use-title';

/** API keys (admins): list, create (the token is shown once), revoke. */
export default function ApiKeysPage() {
  useTitle('API keys');
  const caller = useCaller();
  const keys = useResource(() => api.getAll<ApiKey>('/v1/api-keys'), []);
  // The token of the key just created, shown once, until that key is revoked.
  const [fresh, setFresh] = useState<{ id: string; token: string } | null>(null);
  if (!can(caller, 'admin'))
    return (
      <section>
        <h1>API keys</h1>
        <p>Only an admin key can manage API keys.</p>
      </section>
    );
  const revoke = async (key: ApiKey) => {
    if (!window.confirm(`Revoke ${key.name} (${key.id})? Its sessions end too.`)) return;
    try {
      await api.delete(`/v1/api-keys/${seg(key.id)}`);
      if (fresh?.id === key.id) setFresh(null);
      notify(`Revoked ${key.name}`);
      keys.reload();
    } catch (e) {
      notify(messageOf(e), 'error');
    }
  };
  const items = keys.data?.items ?? [];
  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
      </div>
      <CreateKey
        fresh={fresh?.token ?? null}
        onCreated={(key, token) => {
          setFresh({ id: key.id, token });
          keys.reload();
        }}
      />
      <ProblemBox error={keys.error} title="Keys could not be listed" />
      {keys.loading && !keys.data ? <Loading /> : null}
      {keys.data ? (
        <div class="table-wrap">
          <table class="data" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">
                  Name
                </th>
                <th scope="col" role="columnheader">
                  Key id
                </th>
                <th scope="col" role="columnheader">
                  Role
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Tenant
                </th>
                <th scope="col" role="columnheader" class="wide-only">
                  Last used
                </th>
                <th scope="col" role="columnheader">
                  State
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((key) => (
                <tr role="row" key={key.id}>
                  <td role="cell" data-label="Name">
                    {key.name}
                  </td>
                  <td role="cell" data-label="Key id">
                    <CopyId id={key.id} />
                  </td>
                  <td role="cell" data-label="Role">
                    {key.role}
                  </td>
                  <td role="cell" data-label="Tenant" class="wide-only">
                    {key.tenant}
                  </td>
                  <td role="cell" data-label="Last used" class="wide-only">
                    <Time iso={key.lastUsedAt} />
                  </td>
                  <td role="cell" data-label="State">
                    {key.revokedAt ? (
                      <span class="muted">
                        revoked <Time iso={key.revokedAt} />
                      </span>
                    ) : key.id === caller?.keyId ? (
                      <span class="muted">this session</span>
                    ) : (
                      <button type="button" class="button small" onClick={() => void revoke(key)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function CreateKey({
  fresh: token,
  onCreated,
}: {
  fresh: string | null;
  onCreated: (key: ApiKey, token: string) => void;
}) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('operator');
  const [tenant, setTenant] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api.post<{ key: ApiKey; token: string }>('/v1/api-keys', {
        name: name.trim(),
        role,
        ...(tenant.trim() ? { tenant: tenant.trim() } : {}),
      });
      setName('');
      onCreated(created.key, created.token);
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'unknown', messageOf(e)));
    }
  };
  const nameError = error?.field('name');
  const tenantError = error?.field('tenant');
  return (
    <details class="card create">
      <summary>Create a key</summary>
      <form onSubmit={(e) => void submit(e)} class="form-grid">
        <Field id="key-name" label="Name" error={nameError}>
          <input
            {...describedBy('key-name', nameError)}
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <Field id="key-role" label="Role">
          <select
            id="key-role"
            value={role}
            onChange={(e) => setRole(e.currentTarget.value as Role)}
          >
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <Field
          id="key-tenant"
          label="Tenant (empty: the one you act for; * for a platform key)"
          error={tenantError}
        >
          <input
            {...describedBy('key-tenant', tenantError)}
            value={tenant}
            onInput={(e) => setTenant(e.currentTarget.value)}
          />
        </Field>
        <div class="actions">
          <button type="submit" class="button primary">
            Create
          </button>
        </div>
        {error && !nameError && !tenantError ? (
          <p class="field-error" role="alert">
            {error.detail}
          </p>
        ) : null}
      </form>
      {token ? (
        <div class="token-once" role="status">
          <p>
            <strong>The new key, shown this once:</strong>
          </p>
          <CopyId id={token} />
        </div>
      ) : null}
    </details>
  );
}
