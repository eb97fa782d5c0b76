import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ControlKey, ControlStore } from '../../store/control-store.js';
import type { ServerSecret } from '../auth/server-secret.js';
import { VERDICTS, type Verdict } from '../../control/approvals/approval-strategy.js';
import type { PendingApproval } from '../../control/approvals/pending-approval.js';

/** What a signed link says: who decides what, on which wait, until when. */
export interface LinkClaims {
  tenantId: string;
  executionId: string;
  nodeId: string;
  approvalId: string;
  approver: string;
  decision: Verdict;
  /** Epoch ms. */
  expiresAt: number;
  /** Names the single-use record; the approve and reject links of one pair share it. */
  nonce: string;
}

export type LinkCheck =
  | { ok: true; claims: LinkClaims }
  /** `invalid`: tampered, malformed or signed by another store; `used`: used, or never issued. */
  | { ok: false; reason: 'invalid' | 'expired' | 'used'; claims: LinkClaims | null };

export interface LinkPair {
  approve: string;
  reject: string;
  expiresAt: number;
}

/** Tokens longer than this are refused before any work (a signed token is a few hundred). */
const MAX_TOKEN_LENGTH = 4096;
/** Signed under its own prefix, so no other signed value of the server is a valid link. */
const PURPOSE = 'approval-link.v1.';

const Claims = z.strictObject({
  t: z.string().min(1),
  e: z.string().min(1),
  n: z.string().min(1),
  a: z.string().min(1),
  p: z.string().min(1),
  d: z.enum(VERDICTS),
  x: z.number().int().positive(),
  k: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
});

/**
 * Signed approval links for approvers without an account (docs/http-api.md §4): the token carries its
 * claims and an HMAC of them (the store's signing secret); a record per issued pair, kept until
 * it expires, makes them single-use: redeeming takes it atomically, so of two concurrent uses at
 * most one decides.
 */
export class ApprovalLinks {
  constructor(
    private readonly control: ControlStore,
    private readonly secret: ServerSecret,
  ) {}

  async issue(
    approval: PendingApproval,
    approver: string,
    ttlMs: number,
    now: number = Date.now(),
  ): Promise<LinkPair> {
    const base = {
      tenantId: approval.tenantId,
      executionId: approval.executionId,
      nodeId: approval.nodeId,
      approvalId: approval.approvalId,
      approver,
      expiresAt: now + ttlMs,
      nonce: randomBytes(18).toString('base64url'),
    };
    await this.control.create(keyOf(base), recordOf(base), { ttlMs });
    return {
      approve: await this.#sign({ ...base, decision: 'approve' }),
      reject: await this.#sign({ ...base, decision: 'reject' }),
      expiresAt: base.expiresAt,
    };
  }

  /** Verifies the signature and expiry, and that the pair is unused; consumes nothing. */
  async check(token: string, now: number = Date.now()): Promise<LinkCheck> {
    const verified = await this.#verify(token, now);
    if (!verified.ok) return verified;
    const record = await this.control.get<LinkRecord>(keyOf(verified.claims));
    return record && matches(record.doc, verified.claims)
      ? verified
      : { ok: false, reason: 'used', claims: verified.claims };
  }

  /** As `check`, and uses the pair up, atomically: a second redeem of either link is `used`. */
  async redeem(token: string, now: number = Date.now()): Promise<LinkCheck> {
    const verified = await this.#verify(token, now);
    if (!verified.ok) return verified;
    const record = await this.control.take<LinkRecord>(keyOf(verified.claims));
    return record && matches(record.doc, verified.claims)
      ? verified
      : { ok: false, reason: 'used', claims: verified.claims };
  }

  /** Makes a redeemed pair usable again (its decision could not be recorded for a while). */
  async restore(claims: LinkClaims, now: number = Date.now()): Promise<void> {
    const ttlMs = claims.expiresAt - now;
    if (ttlMs > 0) await this.control.create(keyOf(claims), recordOf(claims), { ttlMs });
  }

  async #sign(claims: LinkClaims): Promise<string> {
    const payload = Buffer.from(
      JSON.stringify({
        t: claims.tenantId,
        e: claims.executionId,
        n: claims.nodeId,
        a: claims.approvalId,
        p: claims.approver,
        d: claims.decision,
        x: claims.expiresAt,
        k: claims.nonce,
      }),
      'utf8',
    ).toString('base64url');
    return `${payload}.${await this.secret.sign(PURPOSE + payload)}`;
  }

  async #verify(token: string, now: number): Promise<LinkCheck> {
    const invalid: LinkCheck = { ok: false, reason: 'invalid', claims: null };
    if (token.length > MAX_TOKEN_LENGTH) return invalid;
    const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
    if (!match) return invalid;
    const [, payload = '', signature = ''] = match;
    // One spelling per signature: base64url's spare low bits may not vary.
    if (Buffer.from(signature, 'base64url').toString('base64url') !== signature) return invalid;
    if (!(await this.secret.verify(PURPOSE + payload, signature))) return invalid;
    const claims = parseClaims(payload);
    if (!claims) return invalid;
    return claims.expiresAt <= now
      ? { ok: false, reason: 'expired', claims }
      : { ok: true, claims };
  }
}

interface LinkRecord {
  executionId: string;
  nodeId: string;
  approvalId: string;
  approver: string;
}

function parseClaims(payload: string): LinkClaims | null {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = Claims.safeParse(json);
  if (!parsed.success) return null;
  const c = parsed.data;
  return {
    tenantId: c.t,
    executionId: c.e,
    nodeId: c.n,
    approvalId: c.a,
    approver: c.p,
    decision: c.d,
    expiresAt: c.x,
    nonce: c.k,
  };
}

function keyOf(claims: Pick<LinkClaims, 'tenantId' | 'nonce'>): ControlKey {
  return { collection: 'approval_links', tenant: claims.tenantId, id: claims.nonce };
}

function recordOf(claims: Omit<LinkClaims, 'decision'>): LinkRecord {
  return {
    executionId: claims.executionId,
    nodeId: claims.nodeId,
    approvalId: claims.approvalId,
    approver: claims.approver,
  };
}

function matches(record: LinkRecord, claims: LinkClaims): boolean {
  return (
    record.executionId === claims.executionId &&
    record.nodeId === claims.nodeId &&
    record.approvalId === claims.approvalId &&
    record.approver === claims.approver
  );
}
