import { randomUUID } from 'node:crypto';
import type { ExecutionState, ExecutionStatus } from '../../state/execution-state.js';
import { type ControlPage, ID_SEPARATOR, PLATFORM_TENANT } from '../../store/control-store.js';
import type { Logger } from '../../util/logger.js';
import type { ApiServices } from '../api-services.js';
import { replayExecution } from '../replay-execution.js';
import { toProblem } from '../to-problem.js';
import { bulkIndexKey, bulkKey, type BulkOperation } from './bulk-operation.js';

const BATCH = 50;
const LEASE_MS = 30_000;
const MAX_FAILURES_KEPT = 20;

/**
 * Works through bulk operations in batches, saving progress (counts and cursor) after each, so
 * an operation survives a restart: whichever server holds its lease continues where the last
 * batch ended. A lease is taken by compare-and-set; an expired one is taken over.
 */
export class BulkRunner {
  readonly #owner = `bulk-${randomUUID()}`;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(
    private readonly services: Pick<ApiServices, 'store' | 'flows' | 'control' | 'client'>,
    private readonly options: { log: Logger; tickMs?: number },
  ) {}

  start(): this {
    const tick = (): void => {
      if (this.#stopped) return;
      this.#running = this.tick()
        .catch((error: unknown) =>
          this.options.log.warn({ err: error }, 'bulk operations tick failed'),
        )
        .finally(() => {
          this.#running = null;
          if (!this.#stopped) this.#timer = setTimeout(tick, this.options.tickMs ?? 250);
        });
    };
    this.#timer = setTimeout(tick, 0);
    return this;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** One batch of every active operation whose lease this runner holds or can take. */
  async tick(): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const page: ControlPage<unknown> = await this.services.control.list({
        collection: 'bulk_operations',
        tenant: PLATFORM_TENANT,
        limit: 100,
        after,
      });
      for (const item of page.items) {
        const at = item.key.id.indexOf(ID_SEPARATOR);
        if (at > 0) await this.#advance(item.key.id.slice(0, at), item.key.id.slice(at + 1));
      }
      if (page.next === null) return;
      after = page.next;
    }
  }

  async #advance(tenant: string, id: string): Promise<void> {
    const record = await this.services.control.get<BulkOperation>(bulkKey(tenant, id));
    if (!record || record.doc.status === 'completed') {
      await this.services.control.delete(bulkIndexKey(tenant, id));
      return;
    }
    const now = Date.now();
    const lease = record.doc.lease;
    if (lease && lease.owner !== this.#owner && lease.until > now) return;
    const op: BulkOperation = {
      ...record.doc,
      status: 'running',
      lease: { owner: this.#owner, until: now + LEASE_MS },
    };
    if (!(await this.services.control.replace(bulkKey(tenant, id), op, record.version))) return;
    const version = record.version + 1;
    const { batch, next, exhausted } = await this.#nextBatch(op);
    let applied = 0;
    let interrupted: Error | null = null;
    const handled = op.handled ?? [];
    for (const state of batch) {
      try {
        await this.#apply(op, state);
        applied++;
        handled.push(state.executionId);
      } catch (error) {
        interrupted = error instanceof Error ? error : new Error(String(error));
        break;
      }
    }
    op.matched += applied;
    if (interrupted === null) {
      Object.assign(op, next);
      delete op.handled;
    } else if ('ids' in op.filter)
      op.offset += applied; // resume after what was applied
    else op.handled = handled; // resume on this page, skipping what was applied
    op.updatedAt = new Date().toISOString();
    const done = interrupted === null && exhausted;
    if (done) {
      op.status = 'completed';
      op.completedAt = op.updatedAt;
      op.lease = null;
    }
    // Our lease: nobody else wrote it meanwhile (a takeover would need it to expire first).
    if ((await this.services.control.replace(bulkKey(tenant, id), op, version)) && done)
      await this.services.control.delete(bulkIndexKey(tenant, id));
    if (interrupted !== null) throw interrupted;
  }

  /**
   * The next executions to act on, and where the batch after them starts. `offset` is the
   * index into `ids`, or for a filter the number already handled of the page at `cursor`.
   */
  async #nextBatch(op: BulkOperation): Promise<{
    batch: ExecutionState[];
    next: { cursor: string | null; offset: number };
    exhausted: boolean;
  }> {
    const tenantId = op.tenantId;
    if ('ids' in op.filter) {
      const ids = op.filter.ids.slice(op.offset, op.offset + BATCH);
      const states = await Promise.all(ids.map((id) => this.services.store.load(id, { tenantId })));
      for (const [i, state] of states.entries()) {
        if (state) continue;
        op.matched++; // selected by the list, refused: matched ≥ done + failed holds
        op.failed++;
        remember(op, ids[i]!, 'no such execution');
      }
      const offset = op.offset + ids.length;
      return {
        batch: states.filter((s): s is ExecutionState => s !== null),
        next: { cursor: null, offset },
        exhausted: offset >= op.filter.ids.length,
      };
    }
    const filter = op.filter;
    const page = await this.services.store.list({
      tenantId,
      ...(filter.status ? { status: filter.status as ExecutionStatus[] } : {}),
      ...(filter.flowId ? { flowId: filter.flowId } : {}),
      ...(filter.from ? { createdAfter: filter.from } : {}),
      ...(filter.to ? { createdBefore: filter.to } : {}),
      limit: BATCH,
      cursor: op.cursor,
    });
    const handled = new Set(op.handled ?? []);
    const states = await Promise.all(
      page.items
        // `offset`: a record written before `handled` existed.
        .slice(op.handled === undefined ? op.offset : 0)
        .filter((item) => !handled.has(item.executionId))
        .map((item) => this.services.store.load(item.executionId, { tenantId })),
    );
    return {
      batch: states.filter((s): s is ExecutionState => s !== null),
      next: { cursor: page.nextCursor, offset: 0 },
      exhausted: page.nextCursor === null,
    };
  }

  async #apply(op: BulkOperation, state: ExecutionState): Promise<void> {
    const scope = { tenantId: op.tenantId };
    try {
      if (op.action === 'cancel')
        await this.services.client.cancel(state.executionId, {
          ...scope,
          reason: `bulk operation ${op.id}`,
        });
      else if (op.action === 'retry') await this.services.client.retry(state.executionId, scope);
      else await replayExecution(this.services, state);
      op.done++;
    } catch (error) {
      const problem = toProblem(error);
      // An outage is not the execution's fault: stop this batch, the lease lets it resume.
      if (problem.retryable) throw error;
      op.failed++;
      remember(op, state.executionId, problem.message);
    }
  }
}

function remember(op: BulkOperation, executionId: string, reason: string): void {
  if (op.failures.length < MAX_FAILURES_KEPT) op.failures.push({ executionId, reason });
}
