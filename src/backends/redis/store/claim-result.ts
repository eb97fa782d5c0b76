/**
 * What `RedisExecutionStore.claimExecution` answers: the store interface's ClaimResult
 * (`claimed` with lease, state and cancel mark | `held` | `absent`), and its request.
 */
export type { ClaimResult, LeaseRequest as ClaimRequest } from '../../../store/execution-store.js';
