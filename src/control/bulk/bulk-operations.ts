import { randomUUID } from 'node:crypto';
import type { ControlStore } from '../../store/control-store.js';
import { NotFoundError } from '../../errors/control-errors.js';
import { keyedId } from '../idempotency.js';
import {
  type BulkAction,
  type BulkFilter,
  bulkIndexKey,
  bulkKey,
  type BulkOperation,
} from './bulk-operation.js';

/**
 * Records a new bulk operation for the runner (bulk-runner.ts) to work through, without HTTP.
 * With an Idempotency-Key the operation's id follows from it: a repeat finds the first (a
 * second operation would act again, and a replay by filter would replay the replays).
 */
export async function createBulkOperation(
  control: ControlStore,
  tenantId: string,
  request: { action: BulkAction; filter: BulkFilter },
  idempotencyKey?: string,
): Promise<{ id: string; created: boolean }> {
  const now = new Date().toISOString();
  const filter =
    'ids' in request.filter
      ? { ids: [...new Set(request.filter.ids)] } // each execution acted on once
      : request.filter;
  const op: BulkOperation = {
    id: idempotencyKey === undefined ? randomUUID() : keyedId('bulk', tenantId, idempotencyKey),
    tenantId,
    action: request.action,
    filter,
    status: 'pending',
    matched: 0,
    done: 0,
    failed: 0,
    failures: [],
    cursor: null,
    offset: 0,
    lease: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
  if (!(await control.create(bulkKey(tenantId, op.id), op))) {
    // A repeat: the first may have died before indexing it (the runner finds work through
    // the index), so the entry is written again; the write is idempotent.
    const first = await control.get<BulkOperation>(bulkKey(tenantId, op.id));
    if (first && first.doc.status !== 'completed')
      await control.put(bulkIndexKey(tenantId, op.id), { at: first.doc.createdAt });
    return { id: op.id, created: false };
  }
  await control.put(bulkIndexKey(tenantId, op.id), { at: now });
  return { id: op.id, created: true };
}

export async function getBulkOperation(
  control: ControlStore,
  tenantId: string,
  id: string,
): Promise<BulkOperation> {
  const record = await control.get<BulkOperation>(bulkKey(tenantId, id));
  if (!record) throw new NotFoundError(`no bulk operation ${id}`);
  return record.doc;
}
