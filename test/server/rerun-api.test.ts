import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

/** start → a → sw (on $INPUT.x) → b | c → end, and a loop that never runs (its body has `inner`). */
const flow = {
  flow_id: 'rerun-api',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: { v: '$F.add($INPUT.i, 1)' }, next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      branches: [
        { condition: { field: '$INPUT.x', operator: 'eq', value: 1 }, next: 'b' },
        { isDefault: true, next: 'c' },
      ],
    },
    { type: 'assignment', id: 'b', output: { v: '$F.add($NODE.a.v, 10)' }, next: 'end' },
    { type: 'assignment', id: 'c', output: { v: '$F.add($NODE.a.v, 100)' }, next: 'end' },
    {
      type: 'loop',
      id: 'never',
      collection: [],
      childFlow: {
        nodes: [
          { type: 'start', id: 'start', next: 'inner' },
          { type: 'assignment', id: 'inner', output: 1, next: 'end' },
          { type: 'end', id: 'end' },
        ],
      },
      next: 'end',
    },
    { type: 'end', id: 'end', output: { a: '$NODE.a.v', b: '$NODE.b.v' } },
  ],
};

interface View {
  executionId: string;
  status: string;
  result?: unknown;
  rerunOf?: string;
  fromNode?: string;
  nodes: Array<{ nodeId: string }>;
}

async function completed(id: string): Promise<View> {
  let view: View;
  await expect
    .poll(async () => (view = await body<View>(await api.fetch(`/v1/executions/${id}`))).status, {
      timeout: 10_000,
    })
    .toBe('completed');
  return view!;
}

const rerun = (id: string, json: unknown, query = '') =>
  api.fetch(`/v1/executions/${id}/rerun${query}`, { method: 'POST', json });

describe('POST /v1/executions/{id}/rerun', () => {
  it('starts a new execution that keeps the results before fromNode, audited; a dry run lists what runs again', async () => {
    const original = await body<View>(
      await api.fetch('/v1/executions?wait=10s', {
        method: 'POST',
        json: { flow, input: { i: 1, x: 1 } },
      }),
    );
    expect(original).toMatchObject({ status: 'completed', result: { a: 2, b: 12 } });
    const id = original.executionId;

    const dry = await rerun(id, { fromNode: 'b' }, '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(await body(dry)).toEqual({
      willRun: [
        { nodeId: 'b', type: 'assignment', effectful: false },
        { nodeId: 'end', type: 'end', effectful: false },
      ],
    });

    const made = await rerun(id, { fromNode: 'b', results: { a: { v: 7 } } });
    expect(made.status).toBe(201);
    const started = await body<View>(made);
    expect(started).toMatchObject({ rerunOf: id, fromNode: 'b' });
    expect(made.headers.get('location')).toBe(`/v1/executions/${started.executionId}`);
    const done = await completed(started.executionId);
    expect(done).toMatchObject({ result: { a: 7, b: 17 }, rerunOf: id, fromNode: 'b' });
    // Only what ran in the rerun is on its timeline.
    expect(done.nodes.map((n) => n.nodeId)).toEqual(['b', 'end']);

    const audit = await body<{ items: Array<{ action: string; target: string }> }>(
      await api.fetch('/v1/audit?limit=500'),
    );
    expect(audit.items.filter((e) => e.action === 'execution.rerun')).toEqual([
      expect.objectContaining({ target: `${id} -> ${started.executionId} from b` }),
    ]);
  });

  it('with an Idempotency-Key, a repeat answers the rerun the first request started (200), once audited', async () => {
    const original = await body<View>(
      await api.fetch('/v1/executions?wait=10s', {
        method: 'POST',
        json: { flow, input: { i: 1, x: 1 } },
      }),
    );
    const id = original.executionId;
    const send = () =>
      api.fetch(`/v1/executions/${id}/rerun`, {
        method: 'POST',
        json: { fromNode: 'b' },
        headers: { 'Idempotency-Key': 'rerun-1' },
      });
    const first = await send();
    expect(first.status).toBe(201);
    const made = await body<View>(first);
    const again = await send();
    expect(again.status).toBe(200);
    expect((await body<View>(again)).executionId).toBe(made.executionId);
    const audit = await body<{ items: Array<{ action: string; target: string }> }>(
      await api.fetch('/v1/audit?limit=500'),
    );
    expect(
      audit.items.filter((e) => e.action === 'execution.rerun' && e.target.startsWith(`${id} `)),
    ).toHaveLength(1);
  });

  it('refuses fromNode that never ran or sits in a loop body, results of nodes not kept, unknown executions and viewers', async () => {
    const original = await body<View>(
      await api.fetch('/v1/executions?wait=10s', {
        method: 'POST',
        json: { flow, input: { i: 1, x: 1 } },
      }),
    );
    const id = original.executionId;
    const refused = async (json: unknown, query = '') => {
      const res = await rerun(id, json, query);
      return { status: res.status, problem: await body<Record<string, unknown>>(res) };
    };
    expect(await refused({ fromNode: 'c' })).toMatchObject({
      status: 400,
      problem: {
        code: 'invalid_request',
        errors: [{ path: 'body.fromNode', message: `node 'c' never ran in execution ${id}` }],
      },
    });
    expect(await refused({ fromNode: 'inner' }, '?dryRun=true')).toMatchObject({
      status: 400,
      problem: { errors: [{ path: 'body.fromNode' }] },
    });
    expect(await refused({ fromNode: 'b', results: { end: 1 } })).toMatchObject({
      status: 400,
      problem: { errors: [{ path: 'body.results.end' }] },
    });
    expect(await refused({ input: {} })).toMatchObject({ status: 400 });
    expect((await rerun('nope', { fromNode: 'b' })).status).toBe(404);
    const viewer = await api.key('viewer', 'default');
    const asViewer = await api.fetch(`/v1/executions/${id}/rerun`, {
      method: 'POST',
      json: { fromNode: 'b' },
      token: viewer,
    });
    expect(asViewer.status).toBe(403);
    // Nothing was started by any of them.
    const list = await body<{ items: unknown[] }>(await api.fetch('/v1/executions'));
    expect(list.items).toHaveLength(1);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await body<{ paths: Record<string, { post?: { responses: object } }> }>(
      await api.fetch('/openapi.json', { token: null }),
    );
    expect(Object.keys(doc.paths['/v1/executions/{id}/rerun']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '201', '400', '404', '409']),
    );
  });
});
