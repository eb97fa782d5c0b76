import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { rerunDryRun, rerunExecution } from '../../control/rerun-execution.js';
import { DEFAULT_LIMITS } from '../../flow/runtime-limits.js';
import { checkDepth } from '../../util/value-depth.js';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { loadExecution, viewOf } from '../execution-reads.js';
import {
  ExecutionIdParam,
  ExecutionViewSchema,
  JsonObject,
  jsonBody,
  jsonResponse,
  problems,
} from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

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
    'With ?dryRun=true nothing starts: the answer lists what would run again, effectful nodes marked. ' +
    '400 when fromNode never ran, is inside a loop, map, parallel or child flow body, or `results` names a node that is not kept; 409 when the definition is no longer stored.',
  middleware: [requireRole('operator')] as const,
  request: {
    params: ExecutionIdParam,
    query: z.object({ dryRun: z.enum(['true', 'false']).optional() }),
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
    200: jsonResponse(WillRunSchema, 'a dry run: what would run again'),
    ...problems(400, 404, 409, 413),
  },
});

export function registerExecutionRerunRoutes(
  app: OpenAPIHono<ServerEnv>,
  services: ApiServices,
): void {
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
    const executionId = await rerunExecution(services, original, ask);
    await services.audit.record(
      c,
      'execution.rerun',
      `${id} -> ${executionId} from ${ask.fromNode}`,
    );
    c.header('Location', `/v1/executions/${encodeURIComponent(executionId)}`);
    const state = await loadExecution(services, tenantId, executionId);
    return c.json(await viewOf(services, state), 201);
  });
}
