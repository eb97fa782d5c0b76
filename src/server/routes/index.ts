import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiServices } from '../api-services.js';
import type { ServerEnv } from '../server-env.js';
import { registerApiKeyRoutes } from './api-keys.js';
import { registerApprovalsRoutes } from './approvals.js';
import { registerExecutionStreamRoutes } from './execution-stream.js';
import { registerFlowsRoutes } from './flows.js';
import { registerExecutionActionRoutes } from './execution-actions.js';
import { registerExecutionFlowRoutes } from './execution-flow.js';
import { registerExecutionRoutes } from './executions.js';
import { registerHealthRoutes } from './health.js';
import { registerOperationsRoutes } from './operations.js';
import { registerSchedulesRoutes } from './schedules.js';
import { registerSessionRoutes } from './sessions.js';
import { registerStatsRoutes } from './stats.js';

export type RouteGroup = (app: OpenAPIHono<ServerEnv>, services: ApiServices) => void;

/** Every route group of the API, registered in this order (docs/http-api.md §4). */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  registerHealthRoutes,
  registerSessionRoutes,
  registerExecutionRoutes,
  registerExecutionActionRoutes,
  registerExecutionStreamRoutes,
  registerExecutionFlowRoutes,
  registerApprovalsRoutes,
  registerFlowsRoutes,
  registerSchedulesRoutes,
  registerOperationsRoutes,
  registerApiKeyRoutes,
  registerStatsRoutes,
];
