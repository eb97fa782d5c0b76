import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { hasErrors } from '../../flow/analysis/flow-issue.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { dryRun } from '../flows/dry-run.js';
import { dryRunDocument } from '../flows/dry-run-document.js';
import { documentGraph } from '../flows/document-graph.js';
import { checkDocument, refuseErrors, validateField } from '../flows/flow-checks.js';
import { documentFromBody, flowHash, withIdentity } from '../flows/flow-document.js';
import {
  DocumentBody,
  DryRunBody,
  DryRunResultSchema,
  FlowIdParam,
  FlowSchema,
  FlowSummarySchema,
  ValidateBody,
  ValidateResultSchema,
  VersionParams,
  VersionSchema,
} from '../flows/flow-schemas.js';
import {
  FlowVersions,
  versionNotFound,
  type FlowVersionRecord,
} from '../../control/flow-versions.js';
import { ApiProblem } from '../problem.js';
import { jsonBody, jsonResponse, PageQuery, pageOf, problems } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

/** A dry-run never holds a request (or the server) longer than this. */
const DRY_RUN_TIMEOUT_MS = 10_000;

const listFlows = createRoute({
  method: 'get',
  path: '/v1/flows',
  tags: ['flows'],
  summary: 'The tenant’s flows in id order (keyset pages)',
  request: { query: z.object(PageQuery) },
  responses: { 200: jsonResponse(pageOf(FlowSummarySchema), 'a page'), ...problems() },
});

const getFlow = createRoute({
  method: 'get',
  path: '/v1/flows/{flowId}',
  tags: ['flows'],
  summary: 'A flow and its versions, newest first',
  request: { params: FlowIdParam },
  responses: { 200: jsonResponse(FlowSchema, 'the flow'), ...problems(404) },
});

const putVersion = createRoute({
  method: 'put',
  path: '/v1/flows/{flowId}/versions/{version}',
  tags: ['flows'],
  summary: 'Save a draft (JSON, or YAML with Content-Type: application/yaml)',
  description:
    'The document is validated (422 invalid_flow lists every issue). Its flow_id and version are set from the URL when absent and must agree when present. A published version is immutable: the same content again is 200, other content 409.',
  middleware: [requireRole('admin')] as const,
  request: { params: VersionParams, body: DocumentBody },
  responses: {
    201: jsonResponse(VersionSchema, 'a new draft'),
    200: jsonResponse(VersionSchema, 'the draft replaced, or the same published content'),
    ...problems(409, 413, 422),
  },
});

const getVersion = createRoute({
  method: 'get',
  path: '/v1/flows/{flowId}/versions/{version}',
  tags: ['flows'],
  summary: 'A version with its document',
  request: { params: VersionParams },
  responses: { 200: jsonResponse(VersionSchema, 'the version'), ...problems(404) },
});

const deleteVersion = createRoute({
  method: 'delete',
  path: '/v1/flows/{flowId}/versions/{version}',
  tags: ['flows'],
  summary: 'Delete a draft (a published version is 409)',
  middleware: [requireRole('admin')] as const,
  request: { params: VersionParams },
  responses: { 204: { description: 'deleted' }, ...problems(404, 409) },
});

const publishVersion = createRoute({
  method: 'post',
  path: '/v1/flows/{flowId}/versions/{version}/publish',
  tags: ['flows'],
  summary: 'Publish a draft: from then on executions start it by flowId',
  description:
    'Refused (422) when the analysis finds an error, a reference to an unpublished flow included. Publishing a published version again is 200.',
  middleware: [requireRole('admin')] as const,
  request: { params: VersionParams },
  responses: { 200: jsonResponse(VersionSchema, 'published'), ...problems(404, 409, 422) },
});

const validate = createRoute({
  method: 'post',
  path: '/v1/flows/validate',
  tags: ['flows'],
  summary: 'Static analysis of a document (docs/validate.md); 200 even when it is invalid',
  request: { body: jsonBody(ValidateBody) },
  responses: { 200: jsonResponse(ValidateResultSchema, 'the issues'), ...problems(413) },
});

const dryRunRoute = createRoute({
  method: 'post',
  path: '/v1/flows/dry-run',
  tags: ['flows'],
  summary: 'Run a flow in process, storing nothing, with a node trace',
  description:
    'Give `flow`, or `flowId` (+ `version`, a draft or published; absent: the latest published). Pinned nodes give their output without running; `onlyNode` runs that node alone. A suspending node stops the run (`waiting`). The flow’s failure is `error` with HTTP 200. Private networks are out of reach unless the server allows them; the run is cut after 10 s.',
  middleware: [requireRole('operator')] as const,
  request: { body: jsonBody(DryRunBody) },
  responses: {
    200: jsonResponse(DryRunResultSchema, 'how the run went'),
    ...problems(404, 413, 422),
  },
});

export function registerFlowsRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  const catalog = new FlowVersions(services.control, services.flows);

  app.openapi(listFlows, async (c) => {
    const query = c.req.valid('query');
    const page = await catalog.list(c.get('tenant'), query.limit ?? 50, decodeCursor(query.cursor));
    return c.json({ items: page.items, nextCursor: encodeCursor(page.next) }, 200);
  });

  app.openapi(getFlow, async (c) => {
    const { flowId } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const summary = await catalog.summary(tenantId, flowId);
    if (!summary) throw new ApiProblem('not_found', `no flow '${flowId}'`);
    const versions = await catalog.versions(tenantId, flowId);
    return c.json({ ...summary, versions: versions.map(versionSummary) }, 200);
  });

  app.openapi(putVersion, async (c) => {
    const { flowId, version } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const body = documentFromBody(await c.req.text(), c.req.header('content-type'));
    const document = withIdentity(body, flowId, version);
    const issues = await checkDocument(services, document, {
      tenantId,
      self: { flowId, version },
      references: 'warning',
    });
    refuseErrors(issues);
    const draft = { flowId, version, document, hash: flowHash(document), issues };
    const { record, outcome } = await catalog.saveDraft(tenantId, draft);
    if (outcome !== 'unchanged') await services.audit.record(c, 'flow.save', target(record));
    c.header('Location', versionPath(record));
    return c.json(versionView(services, record), outcome === 'created' ? 201 : 200);
  });

  app.openapi(getVersion, async (c) => {
    const { flowId, version } = c.req.valid('param');
    const record = await catalog.get(c.get('tenant'), flowId, version);
    if (!record) throw versionNotFound(flowId, version);
    return c.json(versionView(services, record), 200);
  });

  app.openapi(deleteVersion, async (c) => {
    const { flowId, version } = c.req.valid('param');
    await catalog.deleteDraft(c.get('tenant'), flowId, version);
    await services.audit.record(c, 'flow.delete', `${flowId}@${version}`);
    return c.body(null, 204);
  });

  app.openapi(publishVersion, async (c) => {
    const { flowId, version } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const draft = await catalog.get(tenantId, flowId, version);
    if (!draft) throw versionNotFound(flowId, version);
    if (draft.status === 'published') return c.json(versionView(services, draft), 200);
    const issues = await checkDocument(services, draft.document, {
      tenantId,
      self: { flowId, version },
      references: 'error',
    });
    refuseErrors(issues);
    const { record, published } = await catalog.publish(tenantId, draft, issues);
    if (published) await services.audit.record(c, 'flow.publish', target(record));
    return c.json(versionView(services, record), 200);
  });

  app.openapi(validate, async (c) => {
    const { issues, graph } = await validateField(services, c.req.valid('json').flow, {
      tenantId: c.get('tenant'),
      references: 'error',
    });
    return c.json({ valid: !hasErrors(issues), issues, graph }, 200);
  });

  app.openapi(dryRunRoute, async (c) => {
    const body = c.req.valid('json');
    const tenantId = c.get('tenant');
    const document = await dryRunDocument(services, catalog, tenantId, body);
    const request = {
      document,
      input: body.input ?? {},
      pinned: body.pinned ?? {},
      onlyNode: body.onlyNode ?? null,
    };
    const host = {
      registry: services.registry,
      limits: services.limits,
      // The server's own environment (store URLs, secrets) is not a dry-run's to read.
      env: {},
      tenantId,
      resolveFlow: (flowId: string, version: string | null) =>
        services.resolver.byVersion(flowId, version, { tenantId }),
      signal: c.req.raw.signal,
      timeoutMs: DRY_RUN_TIMEOUT_MS,
      logger: services.log,
    };
    const threads = services.dryRunThreads;
    const outcome = threads
      ? await threads.run(request, {
          ...host,
          readFlow: async (flowId, version) =>
            (await services.flows.getByVersion(flowId, version, { tenantId }))?.document ?? null,
        })
      : await dryRun(request, host);
    // Nothing is stored, but the run may have called out (http nodes): it is recorded.
    await services.audit.record(c, 'flow.dry_run', body.flowId ?? '(inline)');
    return c.json(outcome, 200);
  });
}

function versionSummary(record: FlowVersionRecord) {
  return {
    flowId: record.flowId,
    version: record.version,
    status: record.status,
    hash: record.hash,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    publishedAt: record.publishedAt,
  };
}

function versionView(services: ApiServices, record: FlowVersionRecord) {
  return {
    ...versionSummary(record),
    document: record.document,
    issues: record.issues,
    graph: documentGraph(record.document, services.registry),
  };
}

function target(record: FlowVersionRecord): string {
  return `${record.flowId}@${record.version}`;
}

function versionPath(record: FlowVersionRecord): string {
  return `/v1/flows/${encodeURIComponent(record.flowId)}/versions/${encodeURIComponent(record.version)}`;
}
