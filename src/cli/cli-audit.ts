import { AuditLog } from '../server/audit-log.js';
import { errorCode } from '../errors/plaita-error.js';
import type { DurableFlags } from './durable-options.js';
import type { Runtime } from './runtime.js';

/**
 * A write a command made beside the store (start, event, cancel, retry, a dead letter's replay
 * or purge) is recorded in the audit log like the API's own (docs/http-api.md §2), with role
 * `cli`, in the tenant the command acts for: the CLI needs no key, so the log is what shows an
 * operator's hand. Recorded after the write: an audit that fails is said on stderr and never
 * fails the command (that would hide a write that happened: a start run again is a second
 * execution).
 */
export async function auditCliWrite(
  runtime: Runtime,
  flags: DurableFlags,
  action: string,
  target: string,
): Promise<void> {
  try {
    await new AuditLog(runtime.control, () => null).recordLocal(
      action,
      target,
      flags.tenant ?? 'default',
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `plaita: warning: ${action} ${target} was done, but its audit entry could not be written (${errorCode(error) ?? 'error'}: ${reason})\n`,
    );
  }
}
