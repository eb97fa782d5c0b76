import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/server/auth/roles.js';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

/**
 * docs/http-api.md §2 roles, for every route of /openapi.json: `viewer` every GET, `operator`
 * + start, events, approvals, cancel, retry, replay, rerun, dead-letter replay, bulk, schedule
 * trigger, dry-run; `admin` + flows, schedules, keys, audit, purge, delete. A caller below the
 * route's role gets 403 whatever the ids and body (the role is checked first); a caller with
 * it never gets 403. A route missing from NEEDED fails the test, so a new route needs a row.
 */
const NEEDED: Record<string, Role | 'platform' | 'anyone'> = {
  'GET /v1/executions': 'viewer',
  'POST /v1/executions': 'operator',
  'GET /v1/executions/{id}': 'viewer',
  'DELETE /v1/executions/{id}': 'admin',
  'GET /v1/executions/{id}/flow': 'viewer',
  'POST /v1/executions/{id}/events': 'operator',
  'POST /v1/executions/{id}/cancel': 'operator',
  'POST /v1/executions/{id}/retry': 'operator',
  'POST /v1/executions/{id}/replay': 'operator',
  'POST /v1/executions/{id}/rerun': 'operator',
  'GET /v1/executions/{id}/stream': 'viewer',
  'POST /v1/executions/{id}/stream-tickets': 'viewer',
  'GET /v1/approvals': 'viewer',
  'POST /v1/approvals/{executionId}/{nodeId}/decisions': 'operator',
  'POST /v1/approvals/{executionId}/{nodeId}/links': 'operator',
  'GET /v1/approval-links/{token}': 'anyone',
  'POST /v1/approval-links/{token}': 'anyone',
  'GET /v1/flows': 'viewer',
  'GET /v1/flows/{flowId}': 'viewer',
  'GET /v1/flows/{flowId}/versions/{version}': 'viewer',
  'PUT /v1/flows/{flowId}/versions/{version}': 'admin',
  'DELETE /v1/flows/{flowId}/versions/{version}': 'admin',
  'POST /v1/flows/{flowId}/versions/{version}/publish': 'admin',
  'POST /v1/flows/validate': 'viewer',
  'POST /v1/flows/dry-run': 'operator',
  'GET /v1/schedules': 'viewer',
  'POST /v1/schedules': 'admin',
  'GET /v1/schedules/preview': 'viewer',
  'GET /v1/schedules/{id}': 'viewer',
  'PATCH /v1/schedules/{id}': 'admin',
  'DELETE /v1/schedules/{id}': 'admin',
  'POST /v1/schedules/{id}/trigger': 'operator',
  'GET /v1/dead-letters': 'viewer',
  'POST /v1/dead-letters/{id}/replay': 'operator',
  // Purging affects every tenant's dead letters: a platform admin only.
  'DELETE /v1/dead-letters': 'platform',
  'POST /v1/bulk-operations': 'operator',
  'GET /v1/bulk-operations/{id}': 'viewer',
  'GET /v1/workers': 'viewer',
  'GET /v1/stats/executions': 'viewer',
  // The queue is shared by every tenant: its depth is for platform keys.
  'GET /v1/stats/queue': 'platform',
  'GET /v1/api-keys': 'admin',
  'POST /v1/api-keys': 'admin',
  'DELETE /v1/api-keys/{id}': 'admin',
  'GET /v1/audit': 'admin',
  'POST /v1/sessions': 'anyone',
  'GET /v1/sessions/current': 'anyone',
  'DELETE /v1/sessions/current': 'anyone',
};

const RANK: Record<Role | 'platform', number> = { viewer: 0, operator: 1, admin: 2, platform: 3 };

let api: ApiHarness;
let routes: string[];
const tokens = {} as Record<Role | 'platform', string>;

beforeAll(async () => {
  api = await startApi();
  for (const role of ['viewer', 'operator', 'admin'] as const)
    tokens[role] = await api.key(role, 'default');
  tokens.platform = await api.key('admin', '*');
  const doc = await body<{ paths: Record<string, Record<string, unknown>> }>(
    await api.fetch('/openapi.json', { token: null }),
  );
  routes = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
});
afterAll(async () => {
  await api.close();
});

function request(route: string, role: Role | 'platform'): Promise<Response> {
  const [method, template] = route.split(' ') as [string, string];
  // Ids that name nothing: the role must be refused before anything is looked up.
  const path = template.replace(/\{[^}]+\}/g, 'no-such-id');
  const controller = new AbortController();
  return api
    .fetch(path, {
      method: method,
      token: tokens[role],
      signal: controller.signal,
      ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }),
    })
    .then((res) => {
      if (res.headers.get('content-type')?.includes('text/event-stream')) controller.abort();
      return res;
    });
}

describe('roles matrix', () => {
  it('every route of /openapi.json has a row, and every row is a route', () => {
    expect(routes.filter((r) => !(r in NEEDED))).toEqual([]);
    expect(Object.keys(NEEDED).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it('below the route’s role: 403 forbidden; at or above it: never 403', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const needed = NEEDED[route];
      if (needed === undefined || needed === 'anyone') continue;
      for (const role of ['viewer', 'operator', 'admin', 'platform'] as const) {
        const res = await request(route, role);
        const refused = res.status === 403;
        const shouldRefuse = RANK[role] < RANK[needed];
        if (refused !== shouldRefuse) wrong.push(`${route} as ${role}: ${res.status}`);
        if (refused) {
          const problem = await body<{ code: string }>(res);
          if (problem.code !== 'forbidden') wrong.push(`${route} as ${role}: code ${problem.code}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
