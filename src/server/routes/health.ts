import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ApiServices } from '../api-services.js';
import { ApiProblem } from '../problem.js';
import { jsonResponse, ProblemSchema } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';
import { toProblem } from '../to-problem.js';

const healthz = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['operations'],
  summary: 'The process is up (no auth, no I/O)',
  security: [],
  responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), 'alive') },
});

const readyz = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['operations'],
  summary: 'The store and the queue answer (else 503)',
  security: [],
  responses: {
    200: jsonResponse(
      z.object({ ok: z.literal(true), store: z.literal('ok'), queue: z.literal('ok') }),
      'ready',
    ),
    503: {
      description: 'a backend is unreachable',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
  },
});

export function registerHealthRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  app.openapi(healthz, (c) => c.json({ ok: true as const }, 200));
  app.openapi(readyz, async (c) => {
    try {
      // A read of an id that never exists: "absent" proves the store answers.
      await services.store.load('readyz-probe', { tenantId: 'readyz' });
      await services.queue.stats();
    } catch (error) {
      const problem = toProblem(error);
      throw problem.code === 'internal_error'
        ? new ApiProblem('service_unavailable', 'a backend did not answer', { cause: error })
        : problem;
    }
    return c.json({ ok: true as const, store: 'ok' as const, queue: 'ok' as const }, 200);
  });
  // Authenticated by the API's own middleware unless --metrics-public (api-app.ts).
  app.get('/metrics', async (c) => {
    const metrics = services.options.metrics;
    if (!metrics) throw new ApiProblem('not_found', 'this server exports no metrics');
    // The queue and the execution counts are every tenant's (as GET /v1/stats/queue).
    if (!services.options.metricsPublic && c.get('principal').keyTenant !== '*')
      throw new ApiProblem(
        'forbidden',
        '/metrics covers every tenant: it needs a platform key (tenant *), or the server started with --metrics-public',
      );
    return c.text(await metrics(), 200, { 'content-type': 'text/plain; version=0.0.4' });
  });
}
