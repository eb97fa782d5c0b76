import { AuditLog } from '../server/audit-log.js';
import type { DurableFlags } from './durable-options.js';
import type { Runtime } from './runtime.js';

/**
 * A write a command made beside the store (start, event, cancel, retry, a dead letter's replay
 * or purge) is recorded in the audit log like the API's own (docs/http-api.md §2), with role
 * `cli`, in the tenant the command acts for: the CLI needs no key, so the log is what shows an
 * operator's hand.
 */
export function auditCliWrite(
  runtime: Runtime,
  flags: DurableFlags,
  action: string,
  target: string,
): Promise<void> {
  return new AuditLog(runtime.control, () => null).recordLocal(
    action,
    target,
    flags.tenant ?? 'default',
  );
}
