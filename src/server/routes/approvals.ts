import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiServices } from '../api-services.js';
import type { ServerEnv } from '../server-env.js';

/** (being written) */
export function registerApprovalsRoutes(
  _app: OpenAPIHono<ServerEnv>,
  _services: ApiServices,
): void {}
