import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent } from 'undici';
import { normalizeHost, type ResolvedAddress } from './host-policy.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * An undici Agent whose sockets connect only to addresses pinned after the host policy
 * passed them, so a DNS answer that changes between check and connect (rebinding) cannot
 * redirect the request. Only the address lookup is replaced: the TLS layer still receives
 * the URL's hostname, so SNI and certificate verification use the name, not the address.
 * One agent serves one node run; its pins are that run's policy decisions.
 */
export class PinnedAgent {
  readonly dispatcher: Agent;
  readonly #pins = new Map<string, readonly ResolvedAddress[]>();

  /** `ca` trusts extra certificate authorities (tests); the system ones otherwise. */
  constructor(options: { ca?: string } = {}) {
    const lookup = (hostname: string, opts: LookupOptions, callback: LookupCallback): void =>
      this.#lookup(hostname, opts, callback);
    this.dispatcher = new Agent({
      connect: options.ca === undefined ? { lookup } : { lookup, ca: options.ca },
    });
  }

  /** Later connections to `hostname` go to these addresses only. */
  pin(hostname: string, addresses: readonly ResolvedAddress[]): void {
    this.#pins.set(normalizeHost(hostname), addresses);
  }

  /** Closes every socket at once: the run is over, nothing is reused across runs. */
  async destroy(): Promise<void> {
    await this.dispatcher.destroy().catch(() => undefined);
  }

  #lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    const pinned = this.#pins.get(normalizeHost(hostname)) ?? [];
    const family = familyOf(options.family);
    const addresses = pinned.filter((a) => family === null || a.family === family);
    const first = addresses[0];
    if (!first) {
      // Never fall back to DNS: an unpinned host was not checked.
      const error: NodeJS.ErrnoException = new Error(`no checked address for host "${hostname}"`);
      error.code = 'ENOTFOUND';
      callback(error, '', undefined);
      return;
    }
    if (options.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  }
}

function familyOf(family: LookupOptions['family']): 4 | 6 | null {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return null;
}
