import { PLATFORM_TENANT } from '../../store/control-store.js';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ApiServices } from '../api-services.js';
import { requireRole } from '../auth/authenticate.js';
import { ROLES } from '../auth/roles.js';
import { decodeCursor, encodeCursor, pageOfList } from '../cursor.js';
import { ApiProblem } from '../problem.js';
import {
  claimIdempotencyKey,
  IDEMPOTENCY_TTL_MS,
  releaseIdempotencyKey,
} from '../../control/idempotency.js';
import { IdempotencyKeyHeader } from '../idempotency.js';
import { jsonBody, jsonResponse, PageQuery, pageOf, problems } from '../schemas.js';
import type { ServerEnv } from '../server-env.js';

const KeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    tenant: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .openapi('ApiKey');

const AuditSchema = z
  .object({
    id: z.string(),
    at: z.string(),
    keyId: z.string().nullable(),
    role: z.string(),
    tenant: z.string(),
    action: z.string(),
    target: z.string(),
    requestId: z.string(),
    clientAddress: z.string().nullable(),
  })
  .openapi('AuditEntry');

const TENANT = /^(\*|[A-Za-z0-9][A-Za-z0-9._:-]{0,127})$/;

const listKeys = createRoute({
  method: 'get',
  path: '/v1/api-keys',
  tags: ['api keys'],
  summary: 'API keys (a tenant admin sees its tenant’s; a platform admin all)',
  middleware: [requireRole('admin')] as const,
  request: { query: z.object(PageQuery) },
  responses: {
    200: jsonResponse(pageOf(KeySchema), 'keys'),
    ...problems(),
  },
});

const createKey = createRoute({
  method: 'post',
  path: '/v1/api-keys',
  tags: ['api keys'],
  summary: 'Create a key; its token is in this answer only',
  description:
    'With an Idempotency-Key header a repeat makes no second key: 409 naming the key the first made (its token cannot be shown again).',
  middleware: [requireRole('admin')] as const,
  request: {
    headers: IdempotencyKeyHeader,
    body: jsonBody(
      z.strictObject({
        name: z.string().min(1).max(200),
        role: z.enum(ROLES),
        tenant: z.string().regex(TENANT, 'a tenant id, or * for a platform key').optional(),
      }),
    ),
  },
  responses: {
    201: jsonResponse(z.object({ key: KeySchema, token: z.string() }), 'created'),
    ...problems(409),
  },
});

const revokeKey = createRoute({
  method: 'delete',
  path: '/v1/api-keys/{id}',
  tags: ['api keys'],
  summary: 'Revoke a key (its sessions end too)',
  middleware: [requireRole('admin')] as const,
  request: { params: z.object({ id: z.string().min(1).max(64) }) },
  responses: { 204: { description: 'revoked' }, ...problems(404) },
});

const audit = createRoute({
  method: 'get',
  path: '/v1/audit',
  tags: ['audit'],
  summary: 'Every write of the tenant, newest first',
  middleware: [requireRole('admin')] as const,
  request: { query: z.object(PageQuery) },
  responses: { 200: jsonResponse(pageOf(AuditSchema), 'a page'), ...problems() },
});

export function registerApiKeyRoutes(app: OpenAPIHono<ServerEnv>, services: ApiServices): void {
  app.openapi(listKeys, async (c) => {
    const principal = c.get('principal');
    const query = c.req.valid('query');
    const keys = await services.keys.list(principal.keyTenant === '*' ? null : principal.keyTenant);
    return c.json(
      pageOfList(keys, (key) => key.id, query.limit ?? 50, query.cursor),
      200,
    );
  });

  app.openapi(createKey, async (c) => {
    const body = c.req.valid('json');
    const principal = c.get('principal');
    const tenant = body.tenant ?? c.get('tenant');
    // A tenant's admin makes keys for its own tenant only; platform keys need a platform admin.
    if (principal.keyTenant !== '*' && tenant !== principal.keyTenant)
      throw new ApiProblem('forbidden', 'a tenant admin can only create keys of its own tenant');
    // A repeat with the same Idempotency-Key makes no second live key. Its token was in the
    // first answer only (only a hash is kept): the repeat is told which key that was.
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    const claimId = `api_key:${principal.keyId ?? '-'}:${idempotencyKey ?? ''}`;
    const claim =
      idempotencyKey === undefined
        ? undefined
        : await claimIdempotencyKey(services.control, tenant, claimId);
    if (claim === null) {
      const made = (
        await services.control.get<{ keyId?: string }>({
          collection: 'idempotency',
          tenant,
          id: claimId,
        })
      )?.doc.keyId;
      throw new ApiProblem(
        'conflict',
        made === undefined
          ? 'a request with this Idempotency-Key made or is making a key (it may exist: see GET /v1/api-keys, and revoke it if its token was lost)'
          : `this Idempotency-Key already made API key ${made}; its token was shown once: if it was lost, revoke ${made} and make another`,
      );
    }
    let made: Awaited<ReturnType<typeof services.keys.create>>;
    try {
      made = await services.keys.create({ name: body.name, role: body.role, tenant });
    } catch (error) {
      if (claim !== undefined) await releaseIdempotencyKey(services.control, claim);
      throw error;
    }
    const { key, token } = made;
    if (claim !== undefined)
      await services.control.put(claim, { keyId: key.id }, { ttlMs: IDEMPOTENCY_TTL_MS });
    await services.audit.record(c, 'api_key.create', key.id, ownTenant(key.tenant));
    return c.json({ key, token }, 201);
  });

  app.openapi(revokeKey, async (c) => {
    const { id } = c.req.valid('param');
    const principal = c.get('principal');
    const key = await services.keys.get(id);
    if (!key || (principal.keyTenant !== '*' && key.tenant !== principal.keyTenant))
      throw new ApiProblem('not_found', `no API key ${id}`);
    await services.keys.revoke(id);
    await services.audit.record(c, 'api_key.revoke', id, ownTenant(key.tenant));
    return c.body(null, 204);
  });

  app.openapi(audit, async (c) => {
    const query = c.req.valid('query');
    const page = await services.audit.list(
      c.get('tenant'),
      query.limit ?? 50,
      decodeCursor(query.cursor),
    );
    return c.json({ items: page.items, nextCursor: encodeCursor(page.next) }, 200);
  });
}

/** A key of a tenant is recorded in that tenant's log; a platform key in the acting tenant's. */
function ownTenant(tenant: string): { tenant?: string } {
  return tenant === PLATFORM_TENANT ? {} : { tenant };
}
