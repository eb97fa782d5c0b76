import { randomUUID } from 'node:crypto';
import { errorCode } from '../errors/plaita-error.js';
import {
  ExecutionTerminalError,
  InputRejectedError,
  InvalidTransitionError,
  UnknownExecutionError,
  WaitTimeoutError,
} from '../errors/execution-errors.js';
import { FlowDefinitionError } from '../errors/flow-definition-errors.js';
import { parseFlow } from '../engine/parse-flow.js';
import { DEFAULT_LIMITS } from '../flow/runtime-limits.js';
import { checkpointInput } from '../state/checkpoint-context.js';
import { encodeValue } from '../state/codec.js';
import { checkDepth } from '../util/value-depth.js';
import { isLoadedFlow } from '../flow/load-flow.js';
import type { Flow } from '../flow/flow.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { TaskMessage } from '../queue/task-message.js';
import type { TaskQueue } from '../queue/task-queue.js';
import {
  type ExecutionState,
  isTerminal,
  isWaitingQuietly,
  newExecutionState,
} from '../state/execution-state.js';
import {
  DEFAULT_TENANT,
  type ExecutionStore,
  type ListPage,
  type ListQuery,
} from '../store/execution-store.js';
import type { FlowStore, StoredFlow } from '../store/flow-store.js';
import { canonicalJson, sha256Hex } from '../util/canonical-json.js';
import { type Clock, sleep, systemClock } from '../util/clock.js';
import { silentLogger } from '../util/logger.js';

export interface PlaitaClientOptions {
  store: ExecutionStore;
  queue: TaskQueue;
  flows: FlowStore;
  /** Default tenant of every call (default `default`). */
  tenantId?: string;
  /** Node types the flows may use (validation before anything is stored). */
  registry?: NodeRegistry;
  /** Bound of operator retries (must match the workers'; default 3). */
  maxManualRetries?: number;
  /** Deepest nesting accepted in an input or event data (default 256). */
  maxDepth?: number;
  /** Largest event data accepted, encoded (default 1 MiB): refused before it is enqueued. */
  maxEventBytes?: number;
  /** `createdAt` of started executions and `waitFor`'s polling and timeout (default the system clock). */
  clock?: Clock;
}

export const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;
const PREPARED_BY_CONTENT_LIMIT = 256;

export interface StartOptions {
  executionId?: string;
  /** A repeated dedupKey returns the existing execution id and starts nothing. */
  dedupKey?: string;
  tenantId?: string;
  /** With a flowId: which published version (default the latest). */
  version?: string;
}

export interface Scope {
  tenantId?: string;
}

/**
 * Starts executions and acts on them (docs/durable-contract.md §6). Every action writes or checks the
 * state first and enqueues second, so a message never points at nothing.
 */
export class PlaitaClient {
  readonly #tenant: string;
  readonly #clock: Clock;
  /** Flows prepared from documents, by tenant and content (oldest evicted first). */
  readonly #preparedByContent = new Map<string, StoredFlow>();
  /**
   * Flow documents already published through this client (by identity, then tenant): one put
   * per flow and tenant, not per start.
   */
  readonly #published = new WeakMap<object, Map<string, StoredFlow>>();

  constructor(private readonly options: PlaitaClientOptions) {
    this.#tenant = options.tenantId ?? DEFAULT_TENANT;
    this.#clock = options.clock ?? systemClock;
  }

  /** Writes the `queued` state FIRST, then enqueues `run`. Returns the execution id. */
  async start(
    flow: Flow | Record<string, unknown> | string,
    input: Record<string, unknown> = {},
    options: StartOptions = {},
  ): Promise<string> {
    const { tenantId, executionId } = this.#identify(input, options);
    if (options.dedupKey !== undefined || options.executionId !== undefined) {
      const existing = await this.options.store.load(executionId, { tenantId });
      if (existing) {
        await this.requeueIfQueued(existing);
        return executionId;
      }
    }
    const stored = await this.prepare(flow, { tenantId, version: options.version ?? null });
    await this.#queue(stored, { $INPUT: input }, tenantId, executionId, options);
    return executionId;
  }

  /**
   * Validates a flow and stores it in the tenant (idempotent; once per document object and
   * tenant): what `start` does before it writes anything. A host that starts one flow many times
   * keeps the result and calls `startPrepared`, which parses and stores nothing.
   */
  async prepare(
    flow: Flow | Record<string, unknown> | string,
    options: { tenantId?: string; version?: string | null } = {},
  ): Promise<StoredFlow> {
    const tenantId = options.tenantId ?? this.#tenant;
    // The same document sent again (a new object each time, as over HTTP) is not parsed and
    // stored again: it was validated with this client's registry the first time.
    const contentKey =
      typeof flow === 'object' && !isLoadedFlow(flow)
        ? `${tenantId}\u0000${sha256Hex(canonicalJson(flow))}`
        : null;
    const known = contentKey === null ? undefined : this.#preparedByContent.get(contentKey);
    if (known) return known;
    const document = await this.#document(flow, options.version ?? null, tenantId);
    const stored = await this.#publish(document, tenantId);
    if (contentKey !== null) {
      if (this.#preparedByContent.size >= PREPARED_BY_CONTENT_LIMIT)
        this.#preparedByContent.delete(this.#preparedByContent.keys().next().value!);
      this.#preparedByContent.set(contentKey, stored);
    }
    return stored;
  }

  /**
   * Starts a flow `prepare` (or the flow store) returned: writes the `queued` state, then
   * enqueues `run`. Returns the state written. The flow must be stored in `tenantId`.
   */
  async startPrepared(
    stored: StoredFlow,
    input: Record<string, unknown> = {},
    options: StartOptions = {},
  ): Promise<ExecutionState> {
    const { tenantId, executionId } = this.#identify(input, options);
    return this.#queue(stored, { $INPUT: input }, tenantId, executionId, options);
  }

  /**
   * Starts a stored flow from a checkpoint built beforehand (a rerun's, engine/rerun-context.ts):
   * the `queued` state holds it, and the first step goes on from it instead of from `start`.
   * Returns the state written.
   */
  async startFromContext(
    stored: StoredFlow,
    context: Record<string, unknown>,
    options: StartOptions = {},
  ): Promise<ExecutionState> {
    const input = (checkpointInput(context) ?? {}) as Record<string, unknown>;
    const { tenantId, executionId } = this.#identify(input, options);
    return this.#queue(stored, context, tenantId, executionId, options);
  }

  /** The start's tenant and execution id, once its input is known to be storable (depth). */
  #identify(
    input: Record<string, unknown>,
    options: StartOptions,
  ): { tenantId: string; executionId: string } {
    const tenantId = options.tenantId ?? this.#tenant;
    checkDepth(input, this.options.maxDepth ?? DEFAULT_LIMITS.maxDepth, '$INPUT');
    const executionId =
      options.executionId ??
      (options.dedupKey ? dedupExecutionId(tenantId, options.dedupKey) : randomUUID());
    return { tenantId, executionId };
  }

  /** Writes the `queued` state FIRST, then enqueues `run`. */
  async #queue(
    stored: StoredFlow,
    context: Record<string, unknown>,
    tenantId: string,
    executionId: string,
    { dedupKey, executionId: given }: StartOptions,
  ): Promise<ExecutionState> {
    const at = new Date(this.#clock.now()).toISOString();
    const state = newExecutionState({
      executionId,
      tenantId,
      createdAt: at,
      updatedAt: at,
      flowId: stored.flowId,
      flowVersion: stored.version,
      flowHash: stored.flowHash,
      status: 'queued',
      context,
    });
    if (dedupKey) state.dedupKey = dedupKey;
    // A dedup key or an id the caller chose: created only if absent, atomically, so two
    // concurrent starts (each having found nothing) make one execution, and a late or repeated
    // one never resets an execution that exists (a minted id cannot collide).
    const createOnly = dedupKey !== undefined || given !== undefined;
    try {
      await this.options.store.save(state, createOnly ? { createOnly: true } : {});
    } catch (error) {
      const code = errorCode(error);
      // `execution_exists`: only a create-only save says so. `store_unavailable`: the save may
      // still have landed (its reply lost; on a Redis Cluster, the listing-index update after
      // it failed), and a record left without its `run` would wait for the reaper, or on a
      // cluster, unlisted, for ever. What is stored decides.
      if (code !== 'execution_exists' && code !== 'store_unavailable') throw error;
      const existing = await this.options.store
        .load(executionId, { tenantId })
        .catch((): null => null);
      if (existing === null) throw error; // not stored (or deleted meanwhile): start again
      await this.requeueIfQueued(existing);
      return existing;
    }
    await this.#enqueue({ v: 1, kind: 'run', executionId, tenantId });
    return state;
  }

  /**
   * A repeated start found its execution still `queued`: its starter may have died (or its
   * enqueue failed) between the save and the enqueue, so `run` goes again. A second `run` for
   * an execution already under way is harmless (the worker's claim and fence).
   */
  async requeueIfQueued(existing: ExecutionState): Promise<void> {
    if (existing.status !== 'queued') return;
    await this.#enqueue({
      v: 1,
      kind: 'run',
      executionId: existing.executionId,
      tenantId: existing.tenantId,
    });
  }

  /** Delivers an event; rejected for unknown or terminal executions. Returns the event id. */
  async sendEvent(
    executionId: string,
    event: { type: string; data?: unknown; eventId?: string },
    scope: Scope = {},
  ): Promise<string> {
    // The worker takes no event without both (a message it cannot read is dead-lettered):
    // refused here, the caller is never told an event was sent that nothing will deliver.
    for (const path of ['type', 'eventId'] as const) {
      const value: unknown = event[path];
      if ((path === 'type' || value !== undefined) && (typeof value !== 'string' || value === ''))
        throw new InputRejectedError(
          'invalid_event',
          path,
          `the event's ${path} must be a non-empty string`,
        );
    }
    this.#checkEventData(event.data ?? null);
    // A repeated event id (a caller retrying a send whose answer it lost) is applied once: one
    // already applied is answered as sent, even once the event it was has ended the execution,
    // instead of "execution is completed" for an event that worked. One only kept in the inbox
    // is sent again (the worker applies an id once): it may be a corrected resend.
    const state = await this.#existing(executionId, scope);
    const given = event.eventId;
    if (given !== undefined && state.appliedEventIds.includes(given)) return given;
    this.#requireLive(state);
    const eventId = event.eventId ?? randomUUID();
    await this.#enqueue({
      v: 1,
      kind: 'event',
      executionId,
      tenantId: state.tenantId,
      eventId,
      type: event.type,
      data: event.data ?? null,
    });
    return eventId;
  }

  /**
   * Cancels a queued, running (its node's signal fires) or suspended execution. Resolves false
   * when it was cancelled already (a retried cancel): nothing is asked again.
   */
  async cancel(executionId: string, options: Scope & { reason?: string } = {}): Promise<boolean> {
    const existing = await this.#existing(executionId, options);
    // Cancelled already (a retried cancel whose first answer was lost): done, as asked.
    if (existing.status === 'cancelled') return false;
    const state = this.#requireLive(existing);
    await this.options.store.requestCancel(executionId, { tenantId: state.tenantId });
    await this.#enqueue({
      v: 1,
      kind: 'cancel',
      executionId,
      tenantId: state.tenantId,
      ...(options.reason ? { reason: options.reason } : {}),
    });
    return true;
  }

  /** Re-runs an `error` execution from its last good checkpoint (bounded by maxManualRetries). */
  async retry(executionId: string, scope: Scope = {}): Promise<void> {
    const state = await this.#existing(executionId, scope);
    if (state.status !== 'error')
      throw new InvalidTransitionError(
        `execution ${executionId} is ${state.status}: only an execution in error can be retried`,
        { executionId },
      );
    const max = this.options.maxManualRetries ?? 3;
    if (state.manualRetries >= max)
      throw new InvalidTransitionError(
        `execution ${executionId} was already retried ${state.manualRetries} times (the limit is ${max})`,
        { executionId },
      );
    // The retries made so far name the failure this retry is for: the worker re-runs it once,
    // however many requests for it arrive (docs/durable-contract.md §5).
    await this.#enqueue({
      v: 1,
      kind: 'retry',
      executionId,
      tenantId: state.tenantId,
      retriesSeen: state.manualRetries,
    });
  }

  get(executionId: string, scope: Scope = {}): Promise<ExecutionState | null> {
    return this.options.store.load(executionId, { tenantId: scope.tenantId ?? this.#tenant });
  }

  list(query: ListQuery = {}): Promise<ListPage> {
    return this.options.store.list({ ...query, tenantId: query.tenantId ?? this.#tenant });
  }

  /** Resolves once the execution is terminal (`until: 'terminal'`) or also suspended (`'settled'`, default). */
  async waitFor(
    executionId: string,
    options: Scope & { timeoutMs?: number; until?: 'terminal' | 'settled'; pollMs?: number } = {},
  ): Promise<ExecutionState> {
    const clock = this.#clock;
    const deadline = clock.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
      const state = await this.#existing(executionId, options);
      if (
        isTerminal(state.status) ||
        ((options.until ?? 'settled') === 'settled' && isWaitingQuietly(state))
      )
        return state;
      if (clock.now() >= deadline)
        throw new WaitTimeoutError(
          `execution ${executionId} is still ${state.status} after ${options.timeoutMs ?? 30_000} ms`,
        );
      await sleep(clock, options.pollMs ?? 50);
    }
  }

  /** A flowId resolves within the starting tenant only: its own publications, never another's. */
  async #document(
    flow: Flow | Record<string, unknown> | string,
    version: string | null,
    tenantId: string,
  ): Promise<Record<string, unknown>> {
    if (isLoadedFlow(flow)) return flow.document;
    if (typeof flow === 'string' && /^[\w.-]+$/.test(flow.trim())) {
      const stored = await this.options.flows.getByVersion(flow.trim(), version, { tenantId });
      if (!stored)
        throw new FlowDefinitionError([
          {
            path: '',
            message: `no published flow '${flow}'${version ? ` version ${version}` : ''}`,
          },
        ]);
      return stored.document;
    }
    // Validate before anything is stored: an invalid flow never gets an execution.
    return parseFlow(flow, {
      ...(this.options.registry ? { registry: this.options.registry } : {}),
      logger: silentLogger,
    }).document;
  }

  /** Stores the definition in the tenant (idempotent), once per document and tenant. */
  async #publish(document: Record<string, unknown>, tenantId: string): Promise<StoredFlow> {
    let byTenant = this.#published.get(document);
    const known = byTenant?.get(tenantId);
    if (known) return known;
    const stored = await this.options.flows.put(document, { tenantId });
    byTenant ??= new Map();
    byTenant.set(tenantId, stored);
    this.#published.set(document, byTenant);
    return stored;
  }

  /**
   * Refuses event data that could never be delivered before anything is enqueued: too deep,
   * not storable, or so large the waiting execution would end state_too_large. The waiting
   * execution is untouched; the sender gets the error.
   */
  #checkEventData(data: unknown): void {
    checkDepth(data, this.options.maxDepth ?? DEFAULT_LIMITS.maxDepth, 'data');
    const limit = this.options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    const bytes = Buffer.byteLength(encodeValue(data, 'data'));
    if (bytes > limit)
      throw new InputRejectedError(
        'payload_too_large',
        'data',
        `the event data is ${bytes} bytes encoded, over the limit of ${limit}`,
      );
  }

  async #existing(executionId: string, scope: Scope): Promise<ExecutionState> {
    const state = await this.options.store.load(executionId, {
      tenantId: scope.tenantId ?? this.#tenant,
    });
    if (!state) throw new UnknownExecutionError(`no execution ${executionId}`, { executionId });
    return state;
  }

  #requireLive(state: ExecutionState): ExecutionState {
    const { executionId, status } = state;
    if (isTerminal(status))
      throw new ExecutionTerminalError(`execution ${executionId} is ${status}`, { executionId });
    return state;
  }

  async #enqueue(message: TaskMessage): Promise<void> {
    await this.options.queue.enqueue(message);
  }
}

/** A dedupKey maps to one execution id, so a repeated start finds the first. */
function dedupExecutionId(tenantId: string, dedupKey: string): string {
  return `dedup-${sha256Hex(`${tenantId}\u0000${dedupKey}`).slice(0, 32)}`;
}
