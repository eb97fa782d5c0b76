import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, body, startApi } from './support/api-harness.js';

/**
 * Whatever a client sends to a write route — any JSON value, JSON with the route's own field
 * names holding anything, or text that is not JSON at all — the answer is a 2xx or a 4xx
 * problem, never a 5xx and never a hang (docs/http-api.md §3).
 */
const WRITE_ROUTES: ReadonlyArray<{
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  fields: string[];
}> = [
  {
    method: 'POST',
    path: '/v1/executions',
    fields: ['flow', 'flowId', 'version', 'input', 'executionId'],
  },
  { method: 'POST', path: '/v1/executions/{id}/events', fields: ['type', 'data', 'eventId'] },
  { method: 'POST', path: '/v1/executions/{id}/replay', fields: ['input'] },
  {
    method: 'POST',
    path: '/v1/executions/{id}/rerun',
    fields: ['fromNode', 'input', 'results'],
  },
  { method: 'PUT', path: '/v1/flows/fz/versions/1', fields: ['flow_id', 'version', 'nodes'] },
  { method: 'POST', path: '/v1/flows/validate', fields: ['document', 'flow', 'nodes'] },
  { method: 'POST', path: '/v1/flows/dry-run', fields: ['flow', 'input', 'pinned', 'onlyNode'] },
  {
    method: 'POST',
    path: '/v1/schedules',
    fields: ['flowId', 'cron', 'timezone', 'input', 'overlap'],
  },
  { method: 'PATCH', path: '/v1/schedules/{schedule}', fields: ['cron', 'enabled', 'timezone'] },
  {
    method: 'POST',
    path: '/v1/approvals/{id}/approve/decisions',
    fields: ['approver', 'decision', 'comment'],
  },
  { method: 'POST', path: '/v1/approvals/{id}/approve/links', fields: ['approver', 'expiresIn'] },
  { method: 'POST', path: '/v1/api-keys', fields: ['name', 'role', 'tenant'] },
  { method: 'POST', path: '/v1/bulk-operations', fields: ['action', 'filter', 'ids'] },
  { method: 'POST', path: '/v1/sessions', fields: ['apiKey'] },
];

let api: ApiHarness;
let executionId: string;
let scheduleId: string;

beforeAll(async () => {
  api = await startApi();
  const started = await api.fetch('/v1/executions?wait=5s', {
    method: 'POST',
    json: {
      flow: {
        flow_id: 'fz',
        nodes: [
          { type: 'start', id: 'start', next: 'approve' },
          { type: 'approval', id: 'approve', approvers: ['a@x.io'], next: 'end' },
          { type: 'end', id: 'end' },
        ],
      },
    },
  });
  executionId = (await body<{ executionId: string }>(started)).executionId;
  await api.fetch('/v1/flows/fzs/versions/1', {
    method: 'PUT',
    json: {
      nodes: [
        { type: 'start', id: 's', next: 'e' },
        { type: 'end', id: 'e' },
      ],
    },
  });
  await api.fetch('/v1/flows/fzs/versions/1/publish', { method: 'POST' });
  const schedule = await api.fetch('/v1/schedules', {
    method: 'POST',
    json: { flowId: 'fzs', cron: '0 0 1 1 *' },
  });
  scheduleId = (await body<{ id: string }>(schedule)).id;
});
afterAll(async () => {
  await api.close();
});

/** A body: any JSON value, an object of the route's own fields holding anything, or non-JSON text. */
const bodyFor = (fields: string[]) =>
  fc.oneof(
    fc.jsonValue().map((value) => ({ text: JSON.stringify(value), type: 'application/json' })),
    fc
      .dictionary(fc.constantFrom(...fields), fc.jsonValue(), { maxKeys: fields.length })
      .map((value) => ({ text: JSON.stringify(value), type: 'application/json' })),
    fc.string().map((text) => ({ text, type: 'application/json' })),
    fc.string().map((text) => ({ text, type: 'text/plain' })),
  );

describe('write routes under arbitrary bodies', () => {
  for (const route of WRITE_ROUTES) {
    it(`${route.method} ${route.path}: only 2xx/4xx`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyFor(route.fields), async ({ text, type }) => {
          const path = route.path.replace('{id}', executionId).replace('{schedule}', scheduleId);
          const res = await api.fetch(path, {
            method: route.method,
            headers: { 'content-type': type },
            body: text,
            signal: AbortSignal.timeout(10_000),
          });
          const answer = await res.text();
          expect(
            res.status,
            `${route.method} ${path} ${text.slice(0, 200)} → ${answer.slice(0, 300)}`,
          ).toBeLessThan(500);
          if (res.status >= 400)
            expect(res.headers.get('content-type')).toContain('application/problem+json');
        }),
        { numRuns: 40 },
      );
    });
  }
});
