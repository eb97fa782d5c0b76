import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiProblem } from '../../src/server/problem.js';
import { STREAM_TICKET_TTL_MS, StreamTickets } from '../../src/server/stream/stream-tickets.js';
import { MemoryControlStore } from '../../src/backends/memory/memory-control-store.js';

afterEach(() => {
  vi.useRealTimers();
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiProblem);
  return (error as ApiProblem).code;
}

describe('StreamTickets', () => {
  it('a ticket names its tenant once, only for its execution', async () => {
    const control = new MemoryControlStore();
    const tickets = new StreamTickets(control);
    const { ticket, expiresAt } = await tickets.issue('acme', 'exec-1', 'key-1');
    expect(ticket).toMatch(/^pst_[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(STREAM_TICKET_TTL_MS - 5000);
    expect(await tickets.redeem(ticket, 'exec-1')).toEqual({ tenant: 'acme', keyId: 'key-1' });
    expect(await refusal(tickets.redeem(ticket, 'exec-1'))).toBe('unauthorized');

    const other = await tickets.issue('acme', 'exec-1', null);
    expect(await refusal(tickets.redeem(other.ticket, 'exec-2'))).toBe('unauthorized');
  });

  it('only a hash of the ticket is stored', async () => {
    const control = new MemoryControlStore();
    const { ticket } = await new StreamTickets(control).issue('acme', 'exec-1', null);
    const page = await control.list({ collection: 'stream_tickets', tenant: '*' });
    expect(page.items).toHaveLength(1);
    expect(JSON.stringify(page.items)).not.toContain(ticket.slice(4));
  });

  it('of concurrent uses of one ticket exactly one succeeds', async () => {
    const tickets = new StreamTickets(new MemoryControlStore());
    const { ticket } = await tickets.issue('acme', 'exec-1', null);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => tickets.redeem(ticket, 'exec-1')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('a ticket expires after 60 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const tickets = new StreamTickets(new MemoryControlStore());
    const early = await tickets.issue('acme', 'exec-1', null);
    const late = await tickets.issue('acme', 'exec-1', null);
    vi.setSystemTime(Date.now() + STREAM_TICKET_TTL_MS - 1000);
    expect(await tickets.redeem(early.ticket, 'exec-1')).toMatchObject({ tenant: 'acme' });
    vi.setSystemTime(Date.now() + 2000);
    expect(await refusal(tickets.redeem(late.ticket, 'exec-1'))).toBe('unauthorized');
  });
});
