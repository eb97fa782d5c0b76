import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiAppOptions } from '../../src/server/api-services.js';
import { type ApiHarness, body, startApi as startHarness } from './support/api-harness.js';

/**
 * Every case runs twice: in process (a library's createApiApp) and on a dry-run thread, as
 * `plaita serve` runs them (its 4xx answers, reference flows and limits must not differ).
 */
const MODES: Array<{ name: string; app: Partial<ApiAppOptions> }> = [
  { name: 'in process', app: {} },
  { name: 'on a thread', app: { dryRunThreads: { threads: 1, nodeModules: [] } } },
];
let modeApp: Partial<ApiAppOptions> = {};
const harnesses: ApiHarness[] = [];

function startApi(options: Parameters<typeof startHarness>[0] = {}): Promise<ApiHarness> {
  return startHarness({ ...options, app: { ...modeApp, ...options.app } }).then((h) => {
    harnesses.push(h);
    return h;
  });
}

interface TraceEntry {
  nodeId: string;
  type: string | null;
  status: string;
  output: unknown;
  durationMs: number;
}

interface DryRun {
  status: 'completed' | 'error' | 'waiting';
  result?: unknown;
  error?: {
    code: number | string | null;
    type: string | null;
    nodeId: string | null;
    message: string;
  };
  waiting?: { nodeId: string; eventType: string };
  trace: TraceEntry[];
}

/** A local HTTP server that counts what reaches it. */
async function listen(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ reached: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const pipeline = {
  flow_id: 'pipe',
  nodes: [
    { type: 'start', id: 'start', next: 'a' },
    { type: 'assignment', id: 'a', output: '$INPUT.n', next: 'b' },
    { type: 'assignment', id: 'b', output: { doubled: '$F.mul($NODE.a, 2)' }, next: 'end' },
    { type: 'end', id: 'end', output: '$NODE.b.doubled' },
  ],
};

function callOut(url: string) {
  return {
    nodes: [
      { type: 'start', id: 'start', next: 'call' },
      { type: 'http', id: 'call', url, next: 'end' },
      { type: 'end', id: 'end', output: '$NODE.call' },
    ],
  };
}

let api: ApiHarness;
let target: Awaited<ReturnType<typeof listen>>;
beforeEach(async () => {
  api = await startApi();
  target = await listen();
});
afterEach(async () => {
  await api.close();
  await target.close();
});

async function dryRun(request: Record<string, unknown>, harness = api): Promise<DryRun> {
  const res = await harness.fetch('/v1/flows/dry-run', { method: 'POST', json: request });
  expect(res.status).toBe(200);
  return body<DryRun>(res);
}

describe.each(MODES)('POST /v1/flows/dry-run ($name)', (mode) => {
  beforeAll(() => {
    modeApp = mode.app;
  });
  afterAll(async () => {
    // Each app's dry-run threads end with it.
    await Promise.all(
      harnesses.splice(0).map((h) => h.app.services.dryRunThreads?.close() ?? Promise.resolve()),
    );
  });

  it('runs an inline flow with a node trace and stores nothing', async () => {
    const run = await dryRun({ flow: pipeline, input: { n: 21 } });
    expect(run.status).toBe('completed');
    expect(run.result).toBe(42);
    expect(run.trace.map((t) => [t.nodeId, t.type, t.status])).toEqual([
      ['start', 'start', 'done'],
      ['a', 'assignment', 'done'],
      ['b', 'assignment', 'done'],
      ['end', 'end', 'done'],
    ]);
    expect(run.trace[2]!.output).toEqual({ doubled: 42 });
    for (const entry of run.trace) expect(entry.durationMs).toBeGreaterThanOrEqual(0);

    const executions = await body<{ items: unknown[] }>(await api.fetch('/v1/executions'));
    expect(executions.items).toEqual([]);
    expect(await api.backends.flows.getByVersion('pipe', null, { tenantId: 'default' })).toBeNull();
    const flows = await body<{ items: unknown[] }>(await api.fetch('/v1/flows'));
    expect(flows.items).toEqual([]);
  });

  it('accepts the document as YAML text', async () => {
    const yaml = [
      'nodes:',
      '  - {type: start, id: start, next: end}',
      '  - {type: end, id: end, output: "$INPUT.word"}',
    ].join('\n');
    const run = await dryRun({ flow: yaml, input: { word: 'yes' } });
    expect(run).toMatchObject({ status: 'completed', result: 'yes' });
  });

  it('does not let a dry-run read the server’s environment', async () => {
    process.env.PLAITA_DRY_RUN_PROBE = 'server secret';
    try {
      const run = await dryRun({
        flow: {
          exposeEnv: ['PLAITA_DRY_RUN_PROBE'],
          nodes: [
            { type: 'start', id: 'start', next: 'end' },
            { type: 'end', id: 'end', output: '$ENV.PLAITA_DRY_RUN_PROBE' },
          ],
        },
      });
      expect(run).toMatchObject({ status: 'completed', result: null });
    } finally {
      delete process.env.PLAITA_DRY_RUN_PROBE;
    }
  });

  it('records pinned outputs instead of running those nodes', async () => {
    const run = await dryRun({
      flow: callOut(target.url),
      pinned: { call: { pinned: 'response' } },
    });
    expect(run).toMatchObject({ status: 'completed', result: { pinned: 'response' } });
    expect(run.trace.find((t) => t.nodeId === 'call')).toMatchObject({
      type: 'http',
      status: 'pinned',
      output: { pinned: 'response' },
    });
    expect(target.hits()).toBe(0);

    const unknown = await api.fetch('/v1/flows/dry-run', {
      method: 'POST',
      json: { flow: pipeline, pinned: { ghost: 1 } },
    });
    expect(unknown.status).toBe(400);
    expect(await body(unknown)).toMatchObject({ errors: [{ path: 'body.pinned.ghost' }] });
  });

  it('onlyNode runs that one node against the input and the pinned outputs', async () => {
    const run = await dryRun({ flow: pipeline, input: { n: 1 }, pinned: { a: 50 }, onlyNode: 'b' });
    expect(run.status).toBe('completed');
    expect(run.result).toEqual({ doubled: 100 });
    expect(run.trace).toEqual([
      expect.objectContaining({
        nodeId: 'b',
        type: 'assignment',
        status: 'done',
        output: { doubled: 100 },
      }),
    ]);
    // Nothing before or after it ran: the http node would have been refused, the end never reached.
    const alone = await dryRun({ flow: callOut(target.url), onlyNode: 'end', pinned: { call: 7 } });
    expect(alone).toMatchObject({ status: 'completed', result: 7 });
    expect(alone.trace.map((t) => t.nodeId)).toEqual(['end']);

    const missing = await api.fetch('/v1/flows/dry-run', {
      method: 'POST',
      json: { flow: pipeline, onlyNode: 'nope' },
    });
    expect(missing.status).toBe(400);
    expect(await body(missing)).toMatchObject({ errors: [{ path: 'body.onlyNode' }] });
  });

  it('stops at a suspending node with waiting; pinning it lets the run go on', async () => {
    const flow = {
      nodes: [
        { type: 'start', id: 'start', next: 'paid' },
        { type: 'event', id: 'paid', event_type: 'order.paid', next: 'end' },
        { type: 'end', id: 'end', output: '$NODE.paid.event_data.amount' },
      ],
    };
    const run = await dryRun({ flow });
    expect(run.status).toBe('waiting');
    expect(run.waiting).toEqual({ nodeId: 'paid', eventType: 'order.paid' });
    expect(run.trace.map((t) => [t.nodeId, t.status])).toEqual([
      ['start', 'done'],
      ['paid', 'waiting'],
    ]);
    expect(run.trace[1]!.output).toMatchObject({ status: 'pending', event_type: 'order.paid' });

    const resumed = await dryRun({
      flow,
      pinned: { paid: { status: 'completed', event_data: { amount: 12 } } },
    });
    expect(resumed).toMatchObject({ status: 'completed', result: 12 });
  });

  it('reports the flow’s failure as error with HTTP 200', async () => {
    const flow = {
      nodes: [
        { type: 'start', id: 'start', next: 'a' },
        { type: 'assignment', id: 'a', output: '$INPUT.name[', next: 'end' },
        { type: 'end', id: 'end', output: '$NODE.a' },
      ],
    };
    const run = await dryRun({ flow, input: { name: 'x' } });
    expect(run.status).toBe('error');
    expect(run.error).toMatchObject({ type: 'node_error', nodeId: 'a' });
    expect(typeof run.error!.message).toBe('string');
    expect(run.trace.map((t) => [t.nodeId, t.status])).toEqual([
      ['start', 'done'],
      ['a', 'failed'],
    ]);

    const business = await dryRun({
      flow: {
        nodes: [
          { type: 'start', id: 'start', next: 'end' },
          { type: 'end', id: 'end', resultType: 'error', error: { code: 42, message: 'no stock' } },
        ],
      },
    });
    expect(business.error).toEqual({
      code: 42,
      type: 'error_result',
      nodeId: 'end',
      message: expect.stringContaining('no stock'),
    });
  });

  it('refuses a document that does not load with 422, and bad requests with 400', async () => {
    const broken = await api.fetch('/v1/flows/dry-run', {
      method: 'POST',
      json: { flow: { nodes: [{ type: 'teleport', id: 'start' }] } },
    });
    expect(broken.status).toBe(422);
    expect(await body(broken)).toMatchObject({ code: 'invalid_flow' });
    for (const json of [{}, { flow: pipeline, flowId: 'pipe' }, { flow: pipeline, version: '1' }]) {
      const res = await api.fetch('/v1/flows/dry-run', { method: 'POST', json });
      expect(res.status).toBe(400);
    }
    const absent = await api.fetch('/v1/flows/dry-run', {
      method: 'POST',
      json: { flowId: 'nothing' },
    });
    expect(absent.status).toBe(404);
  });

  it('refuses code nodes (remote code execution) unless the server enables a backend, and says so', async () => {
    const coded = {
      nodes: [
        { type: 'start', id: 'start', next: 'calc' },
        {
          type: 'code',
          id: 'calc',
          code: 'function run(x) { return x.n * 2; }',
          input: '$INPUT',
          next: 'end',
        },
        { type: 'end', id: 'end', output: '$NODE.calc' },
      ],
    };
    const refused = await api.fetch('/v1/flows/dry-run', {
      method: 'POST',
      json: { flow: coded, input: { n: 4 } },
    });
    expect(refused.status).toBe(422);
    const problem = await body<{
      detail: string;
      errors: Array<{ path: string; message: string }>;
    }>(refused);
    expect(problem.errors[0]!.path).toMatch(/^nodes\[1\]/);
    expect(JSON.stringify(problem)).toContain('PLAITA_CODE_BACKENDS');
    // The same server with the sandbox enabled for its own runs: the node runs.
    const open = await startApi({ worker: false, app: { limits: { codeBackends: ['quickjs'] } } });
    try {
      expect(await dryRun({ flow: coded, input: { n: 4 } }, open)).toMatchObject({
        status: 'completed',
        result: 8,
      });
    } finally {
      await open.close();
    }
  });

  it('dry-runs a saved draft by flowId + version, and the latest published by flowId', async () => {
    const put = await api.fetch('/v1/flows/pipe/versions/1', { method: 'PUT', json: pipeline });
    expect(put.status).toBe(201);
    const draft = await dryRun({ flowId: 'pipe', version: '1', input: { n: 2 } });
    expect(draft).toMatchObject({ status: 'completed', result: 4 });
    // Without a version the latest published runs: there is none yet.
    const none = await api.fetch('/v1/flows/dry-run', { method: 'POST', json: { flowId: 'pipe' } });
    expect(none.status).toBe(404);
    expect((await api.fetch('/v1/flows/pipe/versions/1/publish', { method: 'POST' })).status).toBe(
      200,
    );
    expect(await dryRun({ flowId: 'pipe', input: { n: 5 } })).toMatchObject({ result: 10 });
    const audit = await body<{ items: Array<{ action: string; target: string }> }>(
      await api.fetch('/v1/audit'),
    );
    expect(audit.items.filter((i) => i.action === 'flow.dry_run').map((i) => i.target)).toEqual([
      'pipe',
      'pipe',
    ]);
  });

  it('applies the SSRF guard: an http node cannot reach 127.0.0.1 unless the server allows private networks', async () => {
    const refused = await dryRun({ flow: callOut(target.url) });
    expect(refused.status).toBe('error');
    expect(refused.error).toMatchObject({ type: 'node_error', nodeId: 'call' });
    expect(refused.error!.message).toMatch(/private|special|127\.0\.0\.1/);
    expect(target.hits()).toBe(0);

    // The same request from a server that allows private networks does reach it.
    const open = await startApi({ worker: false, app: { limits: { privateNetworks: 'allow' } } });
    try {
      const reached = await dryRun({ flow: callOut(target.url) }, open);
      expect(reached).toMatchObject({ status: 'completed', result: { reached: true } });
      expect(target.hits()).toBe(1);
    } finally {
      await open.close();
    }
  });

  it('cuts a run that would hang at the dry-run budget', { timeout: 20_000 }, async () => {
    const slow = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const { port } = slow.address() as { port: number };
    const open = await startApi({ worker: false, app: { limits: { privateNetworks: 'allow' } } });
    try {
      const started = Date.now();
      const run = await dryRun(
        {
          flow: {
            nodes: [
              { type: 'start', id: 'start', next: 'call' },
              {
                type: 'http',
                id: 'call',
                url: `http://127.0.0.1:${port}/`,
                requestTimeout: 60,
                next: 'end',
              },
              { type: 'end', id: 'end', output: '$NODE.call' },
            ],
          },
        },
        open,
      );
      expect(run.status).toBe('error');
      expect(run.error).toMatchObject({ nodeId: 'call' });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await open.close();
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('runs a reference node against the tenant’s published flow', async () => {
    await api.backends.flows.put(
      { ...pipeline, flow_id: 'doubler', version: '1' },
      { tenantId: 'default' },
    );
    const run = await dryRun({
      flow: {
        nodes: [
          { type: 'start', id: 'start', next: 'ref' },
          {
            type: 'reference',
            id: 'ref',
            flow_id: 'doubler',
            input: { n: '$INPUT.n' },
            next: 'end',
          },
          { type: 'end', id: 'end', output: '$NODE.ref' },
        ],
      },
      input: { n: 5 },
    });
    expect(run).toMatchObject({ status: 'completed', result: 10 });
    const missing = await dryRun({
      flow: {
        nodes: [
          { type: 'start', id: 'start', next: 'ref' },
          { type: 'reference', id: 'ref', flow_id: 'nowhere', next: 'end' },
          { type: 'end', id: 'end', output: '$NODE.ref' },
        ],
      },
    });
    expect(missing).toMatchObject({ status: 'error', error: { nodeId: 'ref' } });
  });
});
