import { randomUUID } from 'node:crypto';
import type { PlaitaClient } from '../client/plaita-client.js';
import type { ExecutionState } from '../state/execution-state.js';
import type { ControlStore } from '../store/control-store.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { FlowStore, StoredFlow } from '../store/flow-store.js';
import { DEFAULT_LIMITS } from '../flow/runtime-limits.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';
import { checkDepth } from '../util/value-depth.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors/control-errors.js';
import { FlowVersions } from './flow-versions.js';
import { IDEMPOTENCY_TTL_MS } from './idempotency.js';

export interface StartBody {
  flowId?: string | undefined;
  version?: string | undefined;
  flow?: Record<string, unknown> | undefined;
  input?: Record<string, unknown> | undefined;
  executionId?: string | undefined;
}

/** What a start needs: also what a worker process has, so schedules fire there too. */
export interface StartDeps {
  store: ExecutionStore;
  flows: FlowStore;
  control: ControlStore;
  client: PlaitaClient;
}

export interface Started {
  state: ExecutionState;
  /** False when an earlier request with the same key or id already started it (HTTP 200). */
  created: boolean;
}

/** Execution ids of the API: what every store can hold, never `:` (docs/durable-contract.md §1). */
export const EXECUTION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** How long an idempotency key is remembered. */
/** A winner that has not stored its execution after this long is presumed dead: take over. */
const STALE_START_MS = 60_000;
const REPEAT_WAIT_MS = 10_000;

interface IdempotencyRecord {
  executionId: string;
  fingerprint: string;
  at: number;
}

/**
 * `POST /v1/executions` (docs/http-api.md §4): an `Idempotency-Key` or a given `executionId` makes the
 * start idempotent. Of concurrent identical requests exactly one starts the execution (an
 * atomic create in the control store); the others wait for it and get it back (200). The same
 * key with a different request is 409.
 */
export async function startExecution(
  services: StartDeps,
  tenantId: string,
  body: StartBody,
  idempotencyKey: string | undefined,
): Promise<Started> {
  checkDepth(body, DEFAULT_LIMITS.maxDepth, 'body');
  const flow = await preparedFlow(services, tenantId, body);
  const { executionId, token } = identity(tenantId, body, idempotencyKey);
  if (token !== null) {
    const fingerprint = sha256Hex(canonicalJson({ ...body, executionId }));
    const key = { collection: 'idempotency' as const, tenant: tenantId, id: token };
    const record: IdempotencyRecord = { executionId, fingerprint, at: Date.now() };
    if (!(await services.control.create(key, record, { ttlMs: IDEMPOTENCY_TTL_MS }))) {
      // What the caller reused, for the conflict's words: its header, or the id it chose.
      const reused =
        idempotencyKey !== undefined
          ? 'this Idempotency-Key was already used'
          : `execution ${executionId} already exists, started`;
      const repeat = await repeated(services, tenantId, key, record, reused);
      if (repeat) return await startedBefore(services, repeat);
    }
    try {
      return await begin(services, tenantId, executionId, flow, body.input ?? {});
    } catch (error) {
      // A start that failed (an invalid flow) must not block a corrected retry with the same key.
      await services.control.delete(key).catch(() => undefined);
      throw error;
    }
  }
  return begin(services, tenantId, executionId, flow, body.input ?? {});
}

async function begin(
  services: StartDeps,
  tenantId: string,
  executionId: string,
  flow: StoredFlow,
  input: Record<string, unknown>,
): Promise<Started> {
  const existing = await services.store.load(executionId, { tenantId });
  if (existing) return await startedBefore(services, existing);
  const state = await services.client.startPrepared(flow, input, { executionId, tenantId });
  return { state, created: true };
}

/**
 * An earlier request started it. Still `queued`, its `run` may never have been enqueued (that
 * request's enqueue failed, or its process died after the save): enqueue it again, or a retry
 * answered 200 would leave the execution waiting for ever, and a schedule's slot with it.
 */
async function startedBefore(services: StartDeps, state: ExecutionState): Promise<Started> {
  await services.client.requeueIfQueued(state);
  return { state, created: false };
}

/** A repeat: the same request gets the first one's execution; a different one is a conflict. */
async function repeated(
  services: StartDeps,
  tenantId: string,
  key: { collection: 'idempotency'; tenant: string; id: string },
  mine: IdempotencyRecord,
  reused: string,
): Promise<ExecutionState | null> {
  const deadline = Date.now() + REPEAT_WAIT_MS;
  for (;;) {
    const first = await services.control.get<IdempotencyRecord>(key);
    if (!first) {
      // Expired or given up by a failed start: try to become the one that starts it.
      if (await services.control.create(key, mine, { ttlMs: IDEMPOTENCY_TTL_MS })) return null;
      continue;
    }
    if (first.doc.fingerprint !== mine.fingerprint)
      throw new ConflictError(
        `${reused} with a different request (a repeat must send the same body)`,
      );
    const state = await services.store.load(first.doc.executionId, { tenantId });
    if (state) return state;
    if (Date.now() - first.doc.at > STALE_START_MS) {
      if (await services.control.replace(key, mine, first.version, { ttlMs: IDEMPOTENCY_TTL_MS }))
        return null;
      continue;
    }
    if (Date.now() > deadline)
      throw new ConflictError(
        'a start with this idempotency key is still in progress; retry shortly',
        {
          retryAfterSeconds: 1,
        },
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function identity(
  tenantId: string,
  body: StartBody,
  idempotencyKey: string | undefined,
): { executionId: string; token: string | null } {
  if (body.executionId !== undefined)
    return { executionId: body.executionId, token: `id:${body.executionId}` };
  if (idempotencyKey !== undefined)
    return {
      // Derived from the key: a lost idempotency record still cannot start a second execution.
      executionId: `idem-${sha256Hex(`${tenantId}\u0000${idempotencyKey}`).slice(0, 32)}`,
      token: `key:${idempotencyKey}`,
    };
  return { executionId: randomUUID(), token: null };
}

/** The flow to start: an inline document validated and stored, or the published version. */
async function preparedFlow(
  services: StartDeps,
  tenantId: string,
  body: StartBody,
): Promise<StoredFlow> {
  if ((body.flowId === undefined) === (body.flow === undefined))
    throw new InvalidRequestError('give either flowId (a published flow) or flow (a document)', {
      fieldIssues: [{ path: 'body.flowId', message: 'exactly one of flowId and flow' }],
    });
  if (body.flow !== undefined) {
    if (body.version !== undefined)
      throw new InvalidRequestError('version goes with flowId, not with an inline flow', {
        fieldIssues: [{ path: 'body.version', message: 'only with flowId' }],
      });
    return services.client.prepare(body.flow, { tenantId });
  }
  // Without a version, the latest version published through the API (the catalog) runs; the
  // flow store's own "latest" also counts inline documents that were merely started.
  const version = body.version ?? (await latestPublished(services, tenantId, body.flowId!));
  const stored = await services.flows.getByVersion(body.flowId!, version, {
    tenantId,
  });
  if (!stored)
    throw new NotFoundError(
      body.version === undefined
        ? `no published version of flow '${body.flowId}'`
        : `flow '${body.flowId}' has no published version '${body.version}'`,
      {
        fieldIssues: [
          {
            path: body.version === undefined ? 'body.flowId' : 'body.version',
            message: 'not found',
          },
        ],
      },
    );
  return stored;
}

async function latestPublished(
  services: StartDeps,
  tenantId: string,
  flowId: string,
): Promise<string | null> {
  const summary = await new FlowVersions(services.control, services.flows).summary(
    tenantId,
    flowId,
  );
  return summary?.latestVersion ?? null;
}
