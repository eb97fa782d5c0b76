import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newExecutionState } from '../../src/state/execution-state.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

interface View {
  status: string;
  version: number;
  lease?: { owner: string; expiresAt: string } | null;
}

const view = async (id: string) => body<View>(await api.fetch(`/v1/executions/${id}`));

/** A running execution as a worker leaves it mid-flow (no message queued: no worker takes it). */
async function running(id: string) {
  const state = { ...newExecutionState({ executionId: id }), status: 'running' as const };
  await api.backends.store.save(state);
  return state;
}

describe('a running execution shows who runs it', () => {
  it('names the worker holding its lease, and until when', async () => {
    await running('held');
    const lease = await api.backends.store.acquireLease('held', {
      owner: 'w-east-1',
      ttlMs: 60_000,
    });
    const shown = await view('held');
    expect(shown.status).toBe('running');
    expect(shown.lease).toEqual({
      owner: 'w-east-1',
      expiresAt: new Date(lease!.expiresAt).toISOString(),
    });
  });

  it('says no worker holds it once its lease lapsed (a crashed worker)', async () => {
    await running('orphan');
    await api.backends.store.acquireLease('orphan', { owner: 'w-dead', ttlMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await view('orphan')).lease).toBeNull();
  });

  it('shows the newer state when the lease went because the worker moved it on', async () => {
    const state = await running('moving');
    // The state is read, then the worker finishes (saves, releases); the lease read finds none.
    const store = api.backends.store;
    const getLease = store.getLease.bind(store);
    store.getLease = async (id, scope) => {
      await store.save({ ...state, status: 'completed', version: state.version + 1, result: 1 });
      store.getLease = getLease;
      return getLease(id, scope);
    };
    const shown = await view('moving');
    expect(shown).toMatchObject({ status: 'completed', version: state.version + 1 });
    expect(shown).not.toHaveProperty('lease');
  });

  it('is absent from every other status', async () => {
    const res = await api.fetch('/v1/executions?wait=10s', {
      method: 'POST',
      json: {
        flow: {
          nodes: [
            { type: 'start', id: 'start', next: 'end' },
            { type: 'end', id: 'end', output: 1 },
          ],
        },
      },
    });
    const done = await body<View>(res);
    expect(done.status).toBe('completed');
    expect(done).not.toHaveProperty('lease');
  });
});
