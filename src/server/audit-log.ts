import type { Context } from 'hono';
import { type ControlStore, sortableId } from '../store/control-store.js';
import type { ServerEnv } from './server-env.js';

/** One write, as the audit log keeps it (docs/http-api.md §2): never secrets, never event data. */
export interface AuditEntry {
  id: string;
  at: string;
  keyId: string | null;
  role: string;
  tenant: string;
  action: string;
  target: string;
  requestId: string;
  clientAddress: string | null;
}

/** Every write through the API, recorded per tenant, listed newest first. */
export class AuditLog {
  constructor(
    private readonly control: ControlStore,
    private readonly clientAddress: (c: Context<ServerEnv>) => string | null,
  ) {}

  /**
   * `as.tenant`: the tenant the write was for when it is not the one the request acts for (a
   * platform admin making a key of another tenant: that tenant's admins see it, the acting
   * tenant's do not); `as.role`: who wrote when no key did (`approval_link`).
   */
  async record(
    c: Context<ServerEnv>,
    action: string,
    target: string,
    as: { tenant?: string; role?: string } = {},
  ): Promise<void> {
    const principal = c.get('principal');
    const id = sortableId();
    const entry: AuditEntry = {
      id,
      at: new Date().toISOString(),
      keyId: principal.keyId,
      role: as.role ?? principal.role,
      tenant: as.tenant ?? c.get('tenant'),
      action,
      target,
      requestId: c.get('requestId'),
      clientAddress: this.clientAddress(c),
    };
    await this.control.create({ collection: 'audit', tenant: entry.tenant, id }, entry);
  }

  /**
   * A write made beside the store rather than through the API (`plaita keys …`, run where the
   * store is): recorded the same way, with role `cli`, no key and no client address.
   */
  async recordLocal(action: string, target: string, tenant: string): Promise<void> {
    const id = sortableId();
    const entry: AuditEntry = {
      id,
      at: new Date().toISOString(),
      keyId: null,
      role: 'cli',
      tenant,
      action,
      target,
      requestId: `cli-${id}`,
      clientAddress: null,
    };
    await this.control.create({ collection: 'audit', tenant, id }, entry);
  }

  async list(tenant: string, limit: number, after: string | null) {
    const page = await this.control.list<AuditEntry>({
      collection: 'audit',
      tenant,
      order: 'desc',
      limit,
      after,
    });
    return { items: page.items.map((item) => item.doc), next: page.next };
  }
}
