import type { ExecutionStatus } from '../state/execution-state.js';

/**
 * The API names the durable `suspended` status `waiting` (docs/http-api.md: an execution "settles" when
 * completed, error, cancelled or waiting); filters accept both spellings.
 */
export const API_STATUSES = [
  'queued',
  'running',
  'waiting',
  'completed',
  'error',
  'cancelled',
] as const;
export type ApiStatus = (typeof API_STATUSES)[number];

export function apiStatus(status: ExecutionStatus): ApiStatus {
  return status === 'suspended' ? 'waiting' : status;
}

export function storeStatus(status: ApiStatus | 'suspended'): ExecutionStatus {
  return status === 'waiting' ? 'suspended' : status;
}
