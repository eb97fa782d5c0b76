import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ApiServices } from '../api-services.js';
import { loadExecution } from '../execution-reads.js';
import { documentGraph } from '../flows/document-graph.js';
import { FlowGraphSchema } from '../flows/flow-schemas.js';
import { ApiProblem } from '../problem.js';
import { ExecutionIdParam, JsonObject, jsonResponse, problems } from '../schemas.js';
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

export function registerExecutionFlowRoutes(
  app: OpenAPIHono<ServerEnv>,
  services: ApiServices,
): void {
  app.openapi(pinnedFlow, async (c) => {
    const { id } = c.req.valid('param');
    const tenantId = c.get('tenant');
    const state = await loadExecution(services, tenantId, id);
    const stored = state.flowHash
      ? await services.flows.getByHash(state.flowHash, { tenantId })
      : null;
    if (!stored || !state.flowHash)
      throw new ApiProblem('not_found', `the definition of execution ${id} is not stored`);
    return c.json(
      {
        executionId: state.executionId,
        flowId: state.flowId,
        flowVersion: state.flowVersion,
        flowHash: state.flowHash,
        document: stored.document,
        graph: documentGraph(stored.document, services.registry),
      },
      200,
    );
  });
}
