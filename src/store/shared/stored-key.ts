import { DEFAULT_TENANT, type LeaseRenewal, type TenantScope } from '../execution-store.js';
import { assertTtl, isStorableText } from './stored-text.js';

/** The primary key of an execution, as every store addresses it. */
export interface ExecutionKey {
  tenantId: string;
  executionId: string;
}

/**
 * The key a read, delete or lease call addresses, or null when no saved execution can have it
 * (saves refuse such ids, see assertStorableKeys): the store answers "absent" without asking
 * the backend, which could otherwise reject U+0000 (PostgreSQL) or match a different id after
 * replacing a lone surrogate (SQLite).
 */
export function executionKey(executionId: string, scope: TenantScope = {}): ExecutionKey | null {
  const tenantId = scope.tenantId ?? DEFAULT_TENANT;
  return isStorableText(executionId) && isStorableText(tenantId) ? { tenantId, executionId } : null;
}

/** A renewal's execution key, its TTL checked first (StoreInputError): null when not storable. */
export function renewalKey(executionId: string, lease: LeaseRenewal): ExecutionKey | null {
  assertTtl(lease.ttlMs);
  return executionKey(executionId, lease);
}
