import type { ListQuery } from '../../../src/store/execution-store.js';
import { encodeCursor } from '../../../src/store/shared/list-plan.js';

/** Rows the EXPLAIN tests seed: 5 tenants, 20 flows, 30 hashes, every status, one second apart. */
export const SEEDED_ROWS = 20_000;
export const SEED_EPOCH_MS = 1_700_000_000_000;

/** Every list filter, alone and combined with a window and a cursor, and the index that must serve it. */
export const LIST_SHAPES: { name: string; query: ListQuery; index: string }[] = [
  { name: 'tenant only', query: { tenantId: 'tenant-3' }, index: 'executions_by_created' },
  {
    name: 'tenant + cursor',
    query: {
      tenantId: 'tenant-3',
      cursor: encodeCursor({ createdAt: SEED_EPOCH_MS + 10_000_000, executionId: 'exec-10000' }),
    },
    index: 'executions_by_created',
  },
  {
    name: 'status',
    query: { tenantId: 'tenant-3', status: 'running' },
    index: 'executions_by_status',
  },
  {
    name: 'several statuses',
    query: { tenantId: 'tenant-3', status: ['running', 'error'] },
    index: 'executions_by_status',
  },
  {
    name: 'flowId',
    query: { tenantId: 'tenant-3', flowId: 'flow-8' },
    index: 'executions_by_flow',
  },
  {
    name: 'flowHash',
    query: { tenantId: 'tenant-3', flowHash: 'hash-8' },
    index: 'executions_by_hash',
  },
  {
    name: 'time window',
    query: {
      tenantId: 'tenant-3',
      createdAfter: new Date(SEED_EPOCH_MS + 5_000_000).toISOString(),
      createdBefore: new Date(SEED_EPOCH_MS + 9_000_000).toISOString(),
    },
    index: 'executions_by_created',
  },
  {
    name: 'status + time window + cursor',
    query: {
      tenantId: 'tenant-3',
      status: 'completed',
      createdAfter: new Date(SEED_EPOCH_MS).toISOString(),
      cursor: encodeCursor({ createdAt: SEED_EPOCH_MS + 15_000_000, executionId: 'exec-15000' }),
    },
    index: 'executions_by_status',
  },
];

/** The seed as one INSERT … SELECT over generate_series / a recursive CTE (`i` is 1…SEEDED_ROWS). */
export function seedColumns(i: string, concat: (...parts: string[]) => string): string {
  const statuses = ['queued', 'running', 'suspended', 'completed', 'error', 'cancelled'];
  const status = `CASE ${i} % 6 ${statuses.map((s, n) => `WHEN ${n} THEN '${s}'`).join(' ')} END`;
  return [
    concat(`'tenant-'`, `${i} % 5`),
    concat(`'exec-'`, i),
    concat(`'flow-'`, `${i} % 20`),
    `'1'`,
    concat(`'hash-'`, `${i} % 30`),
    status,
    '0',
    `${SEED_EPOCH_MS} + ${i} * 1000`,
    `${SEED_EPOCH_MS} + ${i} * 1000`,
    `'{}'`,
    '2',
    `'{}'`,
    '2',
  ].join(', ');
}

export const SEED_TARGET =
  'tenant_id, execution_id, flow_id, flow_version, flow_hash, status, version, created_at, updated_at, header, header_bytes, summary, state_bytes';
