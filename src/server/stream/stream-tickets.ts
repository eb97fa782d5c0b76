import { createHash, randomBytes } from 'node:crypto';
import { PLATFORM_TENANT, type ControlKey, type ControlStore } from '../../store/control-store.js';
import { ApiProblem } from '../problem.js';

/** A ticket opens one stream within this long (ms) of being issued (docs/http-api.md §4). */
export const STREAM_TICKET_TTL_MS = 60_000;

const MAX_TICKET_LENGTH = 200;

interface TicketDoc {
  tenant: string;
  executionId: string;
  /** Who asked for it (null with auth off). */
  keyId: string | null;
}

/**
 * Single-use tickets for `GET /v1/executions/{id}/stream?ticket=` (a browser's EventSource
 * cannot send headers). A ticket is bound to the tenant and execution it was issued for; only
 * its hash is stored (collection `stream_tickets`, platform-wide, 60 s TTL), and redeeming it
 * takes the record atomically, so of two concurrent uses exactly one succeeds.
 */
export class StreamTickets {
  constructor(
    private readonly control: ControlStore,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(
    tenant: string,
    executionId: string,
    keyId: string | null,
  ): Promise<{ ticket: string; expiresAt: string }> {
    const ticket = `pst_${randomBytes(24).toString('base64url')}`;
    const expiresAt = new Date(this.now() + STREAM_TICKET_TTL_MS).toISOString();
    const doc: TicketDoc = { tenant, executionId, keyId };
    // 192 random bits: a collision is not a case to handle, but never overwrite one.
    if (!(await this.control.create(keyOf(ticket), doc, { ttlMs: STREAM_TICKET_TTL_MS })))
      throw new Error('stream ticket collision');
    return { ticket, expiresAt };
  }

  /**
   * Whom the ticket was issued to, leaving it usable: a stream that then cannot open (a
   * store outage, a shutdown) must not cost the viewer its ticket. `unauthorized` when it is
   * unknown, expired, already used, or for another execution.
   */
  check(ticket: string, executionId: string): Promise<TicketHolder> {
    return this.#holder(ticket, executionId, (key) => this.control.get<TicketDoc>(key));
  }

  /** As `check`, and uses the ticket up, atomically: of two concurrent uses one succeeds. */
  redeem(ticket: string, executionId: string): Promise<TicketHolder> {
    return this.#holder(ticket, executionId, (key) => this.control.take<TicketDoc>(key));
  }

  async #holder(
    ticket: string,
    executionId: string,
    read: (key: ControlKey) => Promise<{ doc: TicketDoc } | null>,
  ): Promise<TicketHolder> {
    const record =
      ticket.length > 0 && ticket.length <= MAX_TICKET_LENGTH ? await read(keyOf(ticket)) : null;
    if (!record || record.doc.executionId !== executionId)
      throw new ApiProblem(
        'unauthorized',
        'the stream ticket is unknown, expired, already used or for another execution',
      );
    return { tenant: record.doc.tenant, keyId: record.doc.keyId };
  }
}

/** Whom a ticket was issued to: the tenant it reads, and the key that asked (null: auth off). */
export interface TicketHolder {
  tenant: string;
  keyId: string | null;
}

function keyOf(ticket: string): ControlKey {
  const id = createHash('sha256').update(ticket).digest('base64url');
  return { collection: 'stream_tickets', tenant: PLATFORM_TENANT, id };
}
