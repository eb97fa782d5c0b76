// Routes on the definition an execution is pinned to: its document and graph, and a rerun from
// one of its nodes (a new execution of it that keeps the results before that node).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { storedPinnedFlow } from '../../control/replay-execution.js';
import { rerunDryRun, rerunExecution } from '../../control/rerun-execution.js';
import { DEFAULT_LIMITS } from '../../flow/runtime-limits.js';
import { checkDepth } from '../../util/value-depth.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { startOnce } from '../start-once.js';
import { loadExecution } from '../execution-reads.js';
import { documentGraph } from '../flows/document-graph.js';
import { FlowGraphSchema } from '../flows/flow-schemas.js';
import { ApiProblem } from '../problem.js';
import {
  ExecutionIdParam,
  ExecutionViewSchema,
  JsonObject,
  jsonBody,
  jsonResponse,
  problems,
} from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

const PinnedFlowSchema = z
  .object({
    executionId: z.string(),
    flowId: z.string().nullable(),
    flowVersion: z.string().nullable(),
    flowHash: z.string(),
    document: JsonObject,
    graph: FlowGraphSchema,
  })
  .openapi('PinnedFlow');

const pinnedFlow = createRoute({
  method: 'get',
  path: '/v1/executions/{id}/flow',
  tags: ['executions'],
  summary:
    'The flow document the execution runs (the definition pinned by its flowHash), and its graph',
  description:
    'What the console draws as the execution’s graph. 404 when the execution is unknown, or its definition is no longer stored.',
  request: { params: ExecutionIdParam },
  responses: { 200: jsonResponse(PinnedFlowSchema, 'the pinned document'), ...problems(404) },
});

const WillRunSchema = z
  .object({
    willRun: z.array(
      z.object({
        nodeId: z.string(),
        type: z.string(),
        effectful: z.boolean().openapi({
          description:
            'true: it may act on the world again (it is not replayable: see the flow graph)',
        }),
      }),
    ),
  })
  .openapi('RerunDryRun');

const rerun = createRoute({
  method: 'post',
  path: '/v1/executions/{id}/rerun',
  tags: ['executions'],
  summary:
    'Start a new execution of the same pinned version that keeps the results of the nodes before fromNode and runs from it',
  description:
    'With an Idempotency-Key header a repeat returns the rerun the first request started, with 200. ' +
    'With ?dryRun=true nothing starts: the answer lists what would run again, effectful nodes marked. ' +
    '400 when fromNode never ran, is inside a loop, map, parallel or child flow body, or `results` names a node that is not kept; 409 when the definition is no longer stored.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ExecutionIdParam,
    query: z.object({ dryRun: z.enum(['true', 'false']).optional() }),
    headers: IdempotencyKeyHeader,
    body: jsonBody(
      z.strictObject({
        fromNode: z.string().min(1).max(512),
        input: JsonObject.optional(),
        results: JsonObject.optional().openapi({
          description: 'results to keep instead of the saved ones, by node id (kept nodes only)',
        }),
      }),
    ),
  },
  responses: {
    201: jsonResponse(ExecutionViewSchema, 'the new execution (with rerunOf and fromNode)'),
    200: jsonResponse(
      z.union([WillRunSchema, ExecutionViewSchema]),
      'a dry run: what would run again; or a repeat (same Idempotency-Key): the rerun it started',
    ),
    ...problems(400, 404, 409, 413),
  },
});

export function registerExecutionFlowRoutes(
  app: OpenAPIHono<ServerEnv>,
  services: ApiServices,
): void {
  app.openapi(pinnedFlow, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const state = await loadExecution(services, tenantId, id);
    const stored = await storedPinnedFlow(services.flows, state);
    if (!stored)
      throw new ApiProblem('not_found', `the definition of execution ${id} is not stored`);
    return c.json(
      {
        executionId: state.executionId,
        flowId: state.flowId,
        flowVersion: state.flowVersion,
        flowHash: stored.flowHash,
        document: stored.document,
        graph: documentGraph(stored.document, services.registry),
      },
      200,
    );
  });

  app.openapi(rerun, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const original = await loadExecution(services, tenantId, id);
    const ask = c.req.valid('json');
    for (const field of ['input', 'results'] as const)
      if (ask[field] !== undefined)
        checkDepth(ask[field], DEFAULT_LIMITS.maxDepth, `body.${field}`);
    if (c.req.valid('query').dryRun === 'true')
      return c.json({ willRun: await rerunDryRun(services, original, ask) }, 200);
    const started = await startOnce(
      services,
      { tenantId, action: 'rerun', originalId: id, key: c.req.valid('header')['idempotency-key'] },
      (given) => rerunExecution(services, original, ask, given),
      (made) =>
        services.audit.record(c, 'execution.rerun', `${id} -> ${made} from ${ask.fromNode}`),
    );
    c.header('Location', `/v1/executions/${encodeURIComponent(started.executionId)}`);
    return started.repeat ? c.json(started.view, 200) : c.json(started.view, 201);
  });
}
