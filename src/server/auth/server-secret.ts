import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type ControlStore, PLATFORM_TENANT } from '../../store/control-store.js';

/**
 * The key that signs session cookies and approval links. Made once per store (atomic create),
 * so every server on one store verifies what any of them signed.
 */
export class ServerSecret {
  #key: Buffer | undefined;

  constructor(private readonly control: ControlStore) {}

  async key(): Promise<Buffer> {
    if (this.#key) return this.#key;
    const id = { collection: 'settings' as const, tenant: PLATFORM_TENANT, id: 'signing-secret' };
    await this.control.create(id, { secret: randomBytes(32).toString('base64url') });
    const record = await this.control.get<{ secret: string }>(id);
    if (!record) throw new Error('the signing secret vanished right after it was created');
    this.#key = Buffer.from(record.doc.secret, 'base64url');
    return this.#key;
  }

  async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(payload)
      .digest('base64url');
  }

  /** Constant-time check of a signature made by `sign`. */
  async verify(payload: string, signature: string): Promise<boolean> {
    const expected = Buffer.from(await this.sign(payload), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
