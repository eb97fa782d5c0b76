import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FlowVersions } from '../../src/control/flow-versions.js';
import { ID_SEPARATOR } from '../../src/store/control-store.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

/** Returns "hello <name>" in v1 style; versions differ by their greeting. */
function greeting(word: string) {
  return {
    nodes: [
      { type: 'start', id: 'start', next: 'end' },
      { type: 'end', id: 'end', output: `${word} {% $INPUT.name %}` },
    ],
  };
}

const greetingYaml = `
nodes:
  - type: start
    id: start
    next: end
  - type: end
    id: end
    output: "bonjour {% $INPUT.name %}"
`;

/** The document of issue 14: an unparsable expression, a switch without branches, more. */
const issue14 = {
  flow_id: 'b2',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: '$INPUT.name[', next: 'sw' },
    {
      type: 'switch',
      id: 'sw',
      cases: [{ condition: { field: '$NODE.a', operator: 'eq', value: 1 }, next: 'nowhere' }],
      default: 'end',
    },
    { type: 'assignment', id: 'orphan', output: 'x', next: 'end' },
    { type: 'end', id: 'end', output: '$F.uper($NODE.a)' },
  ],
};

interface VersionView {
  flowId: string;
  version: string;
  status: 'draft' | 'published';
  hash: string;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  document: Record<string, unknown>;
  issues: unknown[];
}

interface Problem {
  code: string;
  errors?: Array<{ path: string; message: string }>;
}

let api: ApiHarness;
beforeEach(async () => {
  api = await startApi();
});
afterEach(async () => {
  await api.close();
});

function put(path: string, document: unknown, token?: string) {
  return api.fetch(`/v1/flows/${path}`, {
    method: 'PUT',
    json: document,
    ...(token ? { token } : {}),
  });
}

function putYaml(path: string, text: string) {
  return api.fetch(`/v1/flows/${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/yaml' },
    body: text,
  });
}

function publish(path: string, token?: string) {
  return api.fetch(`/v1/flows/${path}/publish`, { method: 'POST', ...(token ? { token } : {}) });
}

async function startByFlowId(flowId: string, input: Record<string, unknown>) {
  const res = await api.fetch('/v1/executions?wait=10s', {
    method: 'POST',
    json: { flowId, input },
  });
  expect(res.status).toBe(201);
  return body<{ status: string; result: unknown; flowHash: string; flowVersion: string }>(res);
}

describe('a publication repeated late', () => {
  it('keeps the version as published: its time does not move, and a newer version stays the latest', async () => {
    expect((await put('greet/versions/1', greeting('hello'))).status).toBe(201);
    expect((await put('greet/versions/2', greeting('hi'))).status).toBe(201);
    // A request that read version 1 as a draft and is slow to land (a retry, a duplicate).
    const catalog = new FlowVersions(api.app.services.control, api.app.services.flows);
    const stale = (await catalog.get('default', 'greet', '1'))!;
    const first = await body<VersionView>(await publish('greet/versions/1'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await publish('greet/versions/2')).status).toBe(200);
    const late = await catalog.publish('default', stale, []);
    expect(late.published).toBe(false);
    expect(late.record.publishedAt).toBe(first.publishedAt);
    const flow = await body<{ latestVersion: string | null }>(await api.fetch('/v1/flows/greet'));
    expect(flow.latestVersion).toBe('2');
  });
});

describe('flow versions over HTTP', () => {
  it('saves JSON and YAML drafts, lists them, publishes, and starts the latest published by flowId', async () => {
    const v1 = await put('greet/versions/1', greeting('hello'));
    expect(v1.status).toBe(201);
    expect(v1.headers.get('location')).toBe('/v1/flows/greet/versions/1');
    const draft1 = await body<VersionView>(v1);
    expect(draft1).toMatchObject({ flowId: 'greet', version: '1', status: 'draft' });
    expect(draft1.publishedAt).toBeNull();
    // flow_id and version come from the URL when the document has none.
    expect(draft1.document).toMatchObject({ flow_id: 'greet', version: '1' });
    expect(draft1.hash).toMatch(/^[0-9a-f]{64}$/);

    const v2 = await putYaml('greet/versions/2', greetingYaml);
    expect(v2.status).toBe(201);
    const draft2 = await body<VersionView>(v2);
    expect(draft2.document).toMatchObject({ flow_id: 'greet', version: '2' });
    expect(draft2.document.nodes).toEqual([
      { type: 'start', id: 'start', next: 'end' },
      { type: 'end', id: 'end', output: 'bonjour {% $INPUT.name %}' },
    ]);

    const flow = await body<{
      flowId: string;
      latestVersion: string | null;
      versionCount: number;
      versions: Array<Omit<VersionView, 'document' | 'issues'>>;
    }>(await api.fetch('/v1/flows/greet'));
    expect(flow).toMatchObject({ flowId: 'greet', latestVersion: null, versionCount: 2 });
    expect(flow.versions.map((v) => [v.version, v.status])).toEqual([
      ['2', 'draft'],
      ['1', 'draft'],
    ]);
    expect(flow.versions[1]).toEqual({
      flowId: 'greet',
      version: '1',
      status: 'draft',
      hash: draft1.hash,
      createdAt: draft1.createdAt,
      updatedAt: draft1.updatedAt,
      publishedAt: null,
    });

    // A draft does not run.
    const early = await api.fetch('/v1/executions', {
      method: 'POST',
      json: { flowId: 'greet' },
    });
    expect(early.status).toBe(404);

    const published = await publish('greet/versions/1');
    expect(published.status).toBe(200);
    const pub1 = await body<VersionView>(published);
    expect(pub1).toMatchObject({ status: 'published', hash: draft1.hash });
    expect(pub1.publishedAt).toBeTruthy();
    const again = await publish('greet/versions/1');
    expect(again.status).toBe(200);
    expect((await body<VersionView>(again)).publishedAt).toBe(pub1.publishedAt);

    const run1 = await startByFlowId('greet', { name: 'Ada' });
    expect(run1).toMatchObject({ status: 'completed', result: 'hello Ada', flowVersion: '1' });
    // The version's hash is the content hash its executions pin.
    expect(run1.flowHash).toBe(draft1.hash);

    expect((await publish('greet/versions/2')).status).toBe(200);
    const run2 = await startByFlowId('greet', { name: 'Bob' });
    expect(run2).toMatchObject({ result: 'bonjour Bob', flowVersion: '2', flowHash: draft2.hash });

    const list = await body<{ items: Array<Record<string, unknown>>; nextCursor: string | null }>(
      await api.fetch('/v1/flows'),
    );
    expect(list.nextCursor).toBeNull();
    expect(list.items).toEqual([
      expect.objectContaining({ flowId: 'greet', latestVersion: '2', versionCount: 2 }),
    ]);
    const version = await body<VersionView>(await api.fetch('/v1/flows/greet/versions/2'));
    expect(version).toMatchObject({ status: 'published', hash: draft2.hash });
    expect(version.document).toEqual(draft2.document);
  });

  it('keeps a published version immutable; a draft can be replaced and deleted', async () => {
    expect((await put('inv/versions/1', greeting('hi'))).status).toBe(201);
    const replaced = await put('inv/versions/1', greeting('hey'));
    expect(replaced.status).toBe(200);
    expect((await body<VersionView>(replaced)).document.nodes).toEqual(greeting('hey').nodes);
    expect((await publish('inv/versions/1')).status).toBe(200);

    const other = await put('inv/versions/1', greeting('yo'));
    expect(other.status).toBe(409);
    expect(await body<Problem>(other)).toMatchObject({ code: 'conflict' });
    // The same content again is idempotent: 200, nothing changes.
    const same = await put('inv/versions/1', greeting('hey'));
    expect(same.status).toBe(200);
    expect(await body<VersionView>(same)).toMatchObject({ status: 'published' });
    const catalogRecord = () =>
      api.backends.control.get({
        collection: 'flow_versions',
        tenant: 'default',
        id: ['version', 'inv', '1'].join(ID_SEPARATOR),
      });
    const before = await catalogRecord();
    expect(before).not.toBeNull();
    const removePublished = await api.fetch('/v1/flows/inv/versions/1', { method: 'DELETE' });
    expect(removePublished.status).toBe(409);
    // Refused untouched: not taken and put back (a window in which it was gone).
    expect((await catalogRecord())?.version).toBe(before!.version);
    expect(await body<VersionView>(await api.fetch('/v1/flows/inv/versions/1'))).toMatchObject({
      status: 'published',
    });

    expect((await put('inv/versions/2', greeting('draft'))).status).toBe(201);
    expect((await api.fetch('/v1/flows/inv/versions/2', { method: 'DELETE' })).status).toBe(204);
    expect((await api.fetch('/v1/flows/inv/versions/2')).status).toBe(404);
    expect((await api.fetch('/v1/flows/inv/versions/2', { method: 'DELETE' })).status).toBe(404);
    expect((await publish('inv/versions/2')).status).toBe(404);
    const flow = await body<{ versionCount: number }>(await api.fetch('/v1/flows/inv'));
    expect(flow.versionCount).toBe(1);

    // Deleting the last draft of a flow removes the flow from reads.
    expect((await put('gone/versions/1', greeting('x'))).status).toBe(201);
    expect((await api.fetch('/v1/flows/gone/versions/1', { method: 'DELETE' })).status).toBe(204);
    expect((await api.fetch('/v1/flows/gone')).status).toBe(404);
    const list = await body<{ items: Array<{ flowId: string }> }>(await api.fetch('/v1/flows'));
    expect(list.items.map((i) => i.flowId)).toEqual(['inv']);

    const audit = await body<{ items: Array<{ action: string; target: string }> }>(
      await api.fetch('/v1/audit?limit=50'),
    );
    const actions = audit.items.map((i) => `${i.action} ${i.target}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'flow.save inv@1',
        'flow.publish inv@1',
        'flow.save inv@2',
        'flow.delete inv@2',
      ]),
    );
    // Refused and idempotent requests wrote nothing.
    expect(actions.filter((a) => a === 'flow.save inv@1')).toHaveLength(2);
    expect(actions.filter((a) => a === 'flow.publish inv@1')).toHaveLength(1);
  });

  it('refuses a document whose flow_id or version disagrees with the URL, naming the path', async () => {
    const res = await put('orders/versions/3', {
      ...greeting('x'),
      flow_id: 'billing',
      version: 4,
    });
    expect(res.status).toBe(422);
    const problem = await body<Problem>(res);
    expect(problem.code).toBe('invalid_flow');
    expect(problem.errors?.map((e) => e.path)).toEqual(['flow_id', 'version']);
    // Agreeing values (a numeric version included) are kept as written.
    const ok = await put('orders/versions/3', { ...greeting('x'), flowId: 'orders', version: 3 });
    expect(ok.status).toBe(201);
    const saved = await body<VersionView>(ok);
    expect(saved.document).toMatchObject({ flowId: 'orders', version: 3 });
    expect(saved.document).not.toHaveProperty('flow_id');
  });

  it('refuses the issue-14 document with 422 naming each path, and validate reports the same issues', async () => {
    const res = await put('b2/versions/1', issue14);
    expect(res.status).toBe(422);
    const problem = await body<Problem>(res);
    expect(problem.code).toBe('invalid_flow');
    const paths = problem.errors!.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'nodes[1].output',
        'nodes[2]',
        'nodes[2].cases',
        'nodes[3]',
        'nodes[4].output',
      ]),
    );
    expect(problem.errors!.find((e) => e.path === 'nodes[1].output')!.message).toMatch(
      /^error expression_parse_error: /,
    );
    expect(problem.errors!.find((e) => e.path === 'nodes[4].output')!.message).toMatch(
      /^warning unknown_function: .*upper/,
    );
    expect((await api.fetch('/v1/flows/b2')).status).toBe(404);

    const validated = await api.fetch('/v1/flows/validate', {
      method: 'POST',
      json: { flow: issue14 },
    });
    expect(validated.status).toBe(200);
    const report = await body<{
      valid: boolean;
      issues: Array<{ severity: string; code: string; path: string; nodeId: string | null }>;
    }>(validated);
    expect(report.valid).toBe(false);
    expect(report.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: 'error',
          code: 'expression_parse_error',
          path: 'nodes[1].output',
          nodeId: 'a',
        }),
        expect.objectContaining({ severity: 'error', code: 'no_branches', nodeId: 'sw' }),
        expect.objectContaining({ code: 'unreachable_node', nodeId: 'orphan' }),
        expect.objectContaining({ code: 'unknown_function', suggestion: 'upper' }),
      ]),
    );
    expect(new Set(report.issues.map((i) => i.path))).toEqual(new Set(paths));
  });

  it('validates YAML text, reports a document that does not load, and refuses unreadable bodies with 422', async () => {
    const yaml = await body<{ valid: boolean; issues: unknown[] }>(
      await api.fetch('/v1/flows/validate', { method: 'POST', json: { flow: greetingYaml } }),
    );
    expect(yaml).toEqual({
      valid: true,
      issues: [],
      graph: {
        nodes: [
          { id: 'start', type: 'start', missing: false, replayable: true, effect: null },
          { id: 'end', type: 'end', missing: false, replayable: true, effect: null },
        ],
        edges: [{ from: 'start', to: 'end', kind: 'next', label: null }],
      },
    });
    const broken = await body<{
      valid: boolean;
      issues: Array<{ code: string }>;
      graph: unknown;
    }>(
      await api.fetch('/v1/flows/validate', {
        method: 'POST',
        json: { flow: 'nodes: [\n  - {type: start' },
      }),
    );
    expect(broken.valid).toBe(false);
    expect(broken.issues[0]!.code).toBe('definition_error');
    expect(broken.graph).toBeNull(); // not a document at all: nothing to draw

    const badJson = await api.fetch('/v1/flows/y/versions/1', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"nodes": [',
    });
    expect(badJson.status).toBe(400);
    expect(await body<Problem>(badJson)).toMatchObject({
      code: 'invalid_request',
      errors: [{ path: 'body' }],
    });
    expect((await api.fetch('/v1/flows/y/versions/1')).status).toBe(404);
    const badYaml = await putYaml('y/versions/1', 'nodes: [\n  - {type: start');
    expect(badYaml.status).toBe(422);
    expect(await body<Problem>(badYaml)).toMatchObject({
      code: 'invalid_flow',
      errors: [{ path: '' }],
    });
    // A 422's issues carry the fields a validation answer has, beside the readable message.
    const typo = await put('y/versions/1', {
      nodes: [
        { type: 'start', id: 'start', next: 'edn' },
        { type: 'end', id: 'end' },
      ],
    });
    expect(typo.status).toBe(422);
    expect((await body<Problem>(typo)).errors).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'unknown_target',
        nodeId: 'start',
        path: 'nodes[0].next',
      }),
    );
    const notLoading = await put('y/versions/1', { nodes: [{ type: 'teleport', id: 'start' }] });
    expect(notLoading.status).toBe(422);
    expect((await body<Problem>(notLoading)).errors![0]!.path).toMatch(/^nodes\[0\]/);
    const notAnObject = await put('y/versions/1', [1, 2]);
    expect(notAnObject.status).toBe(422);
    const wrongType = await api.fetch('/v1/flows/y/versions/1', {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'nodes: []',
    });
    expect(wrongType.status).toBe(400);
    expect(await body<Problem>(wrongType)).toMatchObject({
      code: 'invalid_request',
      errors: [{ path: 'header.content-type' }],
    });
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const tooDeep = await api.fetch('/v1/flows/y/versions/1', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: `{"nodes": ${deep}}`,
    });
    expect(tooDeep.status).toBe(422);
  });

  it('refuses to publish a draft whose reference names an unpublished flow', async () => {
    const referencing = {
      nodes: [
        { type: 'start', id: 'start', next: 'ref' },
        { type: 'reference', id: 'ref', flow_id: 'helper', input: '$INPUT', next: 'end' },
        { type: 'end', id: 'end', output: '$NODE.ref' },
      ],
    };
    // A draft may name a flow that is published later: a warning only.
    const saved = await put('main/versions/1', referencing);
    expect(saved.status).toBe(201);
    expect((await body<VersionView>(saved)).issues).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'flow_not_found' }),
    ]);
    const refused = await publish('main/versions/1');
    expect(refused.status).toBe(422);
    expect((await body<Problem>(refused)).errors![0]!.message).toMatch(/^error flow_not_found/);

    expect((await put('helper/versions/1', greeting('helped'))).status).toBe(201);
    expect((await publish('helper/versions/1')).status).toBe(200);
    expect((await publish('main/versions/1')).status).toBe(200);
    const run = await startByFlowId('main', { name: 'Cy' });
    expect(run).toMatchObject({ status: 'completed', result: 'helped Cy' });
  });

  it('keeps tenants apart: another tenant’s flow is 404 and absent from its list', async () => {
    const adminA = await api.key('admin', 'tenant-a');
    const adminB = await api.key('admin', 'tenant-b');
    expect((await put('secret/versions/1', greeting('a'), adminA)).status).toBe(201);
    expect((await publish('secret/versions/1', adminA)).status).toBe(200);

    const asB = (path: string, init: RequestInit = {}) =>
      api.fetch(path, { ...init, token: adminB });
    expect((await asB('/v1/flows/secret')).status).toBe(404);
    expect((await asB('/v1/flows/secret/versions/1')).status).toBe(404);
    expect((await asB('/v1/flows/secret/versions/1/publish', { method: 'POST' })).status).toBe(404);
    expect((await asB('/v1/flows/secret/versions/1', { method: 'DELETE' })).status).toBe(404);
    const listB = await body<{ items: unknown[] }>(await asB('/v1/flows'));
    expect(listB.items).toEqual([]);
    const startB = await asB('/v1/executions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ flowId: 'secret' }),
    });
    expect(startB.status).toBe(404);
    const dryB = await asB('/v1/flows/dry-run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ flowId: 'secret', version: '1' }),
    });
    expect(dryB.status).toBe(404);

    // The same id in tenant B is its own flow, with its own content.
    expect((await put('secret/versions/1', greeting('b'), adminB)).status).toBe(201);
    const listA = await body<{ items: Array<{ flowId: string; latestVersion: string | null }> }>(
      await api.fetch('/v1/flows', { token: adminA }),
    );
    expect(listA.items).toEqual([
      expect.objectContaining({ flowId: 'secret', latestVersion: '1' }),
    ]);
    const inB = await body<VersionView>(await asB('/v1/flows/secret/versions/1'));
    expect(inB.status).toBe('draft');
  });

  it('lets viewers read and validate, operators dry-run, and only admins write', async () => {
    const viewer = await api.key('viewer', 'default');
    const operator = await api.key('operator', 'default');
    expect((await put('roles/versions/1', greeting('r'))).status).toBe(201);

    expect((await api.fetch('/v1/flows', { token: viewer })).status).toBe(200);
    expect((await api.fetch('/v1/flows/roles', { token: viewer })).status).toBe(200);
    expect((await api.fetch('/v1/flows/roles/versions/1', { token: viewer })).status).toBe(200);
    const validateAsViewer = await api.fetch('/v1/flows/validate', {
      method: 'POST',
      token: viewer,
      json: { flow: greeting('v') },
    });
    expect(validateAsViewer.status).toBe(200);

    for (const token of [viewer, operator]) {
      const write = await put('roles/versions/2', greeting('w'), token);
      expect(write.status).toBe(403);
      expect(await body<Problem>(write)).toMatchObject({ code: 'forbidden' });
      expect((await publish('roles/versions/1', token)).status).toBe(403);
      const remove = await api.fetch('/v1/flows/roles/versions/1', { method: 'DELETE', token });
      expect(remove.status).toBe(403);
    }
    const dry = (token: string) =>
      api.fetch('/v1/flows/dry-run', {
        method: 'POST',
        token,
        json: { flowId: 'roles', version: '1', input: { name: 'Op' } },
      });
    expect((await dry(viewer)).status).toBe(403);
    const asOperator = await dry(operator);
    expect(asOperator.status).toBe(200);
    expect(await body(asOperator)).toMatchObject({ status: 'completed', result: 'r Op' });
    expect((await api.fetch('/v1/flows/roles/versions/1', { token: viewer })).status).toBe(200);
    expect((await api.fetch('/v1/flows/roles', { token: null })).status).toBe(401);
  });

  it('describes the flow routes in /openapi.json, the PUT body as JSON or YAML', async () => {
    const res = await api.fetch('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await body<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    }>(res);
    const version = doc.paths['/v1/flows/{flowId}/versions/{version}']!;
    expect(Object.keys(version).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(version.put!.requestBody!.content)).toEqual([
      'application/json',
      'application/yaml',
    ]);
    for (const path of [
      '/v1/flows',
      '/v1/flows/{flowId}',
      '/v1/flows/{flowId}/versions/{version}/publish',
      '/v1/flows/validate',
      '/v1/flows/dry-run',
    ])
      expect(doc.paths).toHaveProperty([path]);
  });

  it('lists flows in keyset pages and refuses a cursor it did not make', async () => {
    for (const id of ['c', 'a', 'b'])
      expect((await put(`${id}/versions/1`, greeting(id))).status).toBe(201);
    const first = await body<{ items: Array<{ flowId: string }>; nextCursor: string | null }>(
      await api.fetch('/v1/flows?limit=2'),
    );
    expect(first.items.map((i) => i.flowId)).toEqual(['a', 'b']);
    expect(first.nextCursor).toBeTruthy();
    const second = await body<{ items: Array<{ flowId: string }>; nextCursor: string | null }>(
      await api.fetch(`/v1/flows?limit=2&cursor=${first.nextCursor}`),
    );
    expect(second.items.map((i) => i.flowId)).toEqual(['c']);
    expect(second.nextCursor).toBeNull();
    const bad = await api.fetch('/v1/flows?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(await body<Problem>(bad)).toMatchObject({ errors: [{ path: 'query.cursor' }] });
    expect((await api.fetch('/v1/flows/bad%20id')).status).toBe(400);
  });
});
