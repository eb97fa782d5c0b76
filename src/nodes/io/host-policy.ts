import { BlockList, isIP } from 'node:net';
import { isSpecialAddress } from './special-address.js';
import { HostPolicyError } from '../../errors/node-errors.js';

/** One address of a host, as the resolver returns it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface HostPolicyOptions {
  allowedHosts: readonly string[];
  deniedHosts: readonly string[];
  blockPrivateNetworks: boolean;
  /** Who asked for the block, named in refusals; `blockPrivateNetworks` when absent. */
  blockedBy?: string;
}

type HostRule =
  | { entry: string; kind: 'exact'; host: string }
  | { entry: string; kind: 'suffix'; suffix: string }
  | { entry: string; kind: 'cidr'; block: BlockList }
  | { entry: string; kind: 'never' };

/**
 * allowedHosts / deniedHosts / blockPrivateNetworks. Pure: the caller resolves the host
 * (literal addresses included) and connects only to the addresses `check` returns.
 */
export class HostPolicy {
  readonly #allowed: HostRule[];
  readonly #denied: HostRule[];
  readonly #enforceAllowed: boolean;
  readonly #blockPrivate: boolean;
  readonly #blockedBy: string;

  constructor(options: HostPolicyOptions) {
    this.#allowed = options.allowedHosts.map(parseHostRule);
    this.#denied = options.deniedHosts.map(parseHostRule);
    // A non-empty list is enforced even when every entry is blank (as in the original).
    this.#enforceAllowed = options.allowedHosts.length > 0;
    this.#blockPrivate = options.blockPrivateNetworks;
    this.#blockedBy = options.blockedBy ?? 'blockPrivateNetworks';
  }

  /** Throws HostPolicyError naming the host and the rule; returns the addresses that passed. */
  check(url: URL, addresses: readonly ResolvedAddress[]): ResolvedAddress[] {
    this.checkScheme(url);
    const host = normalizeHost(url.hostname);
    for (const rule of this.#denied) {
      if (matchesName(rule, host))
        throw new HostPolicyError(`host "${host}" matches deniedHosts entry "${rule.entry}"`);
      const hit = addresses.find((a) => matchesAddress(rule, a));
      if (hit)
        throw new HostPolicyError(
          `host "${host}" resolves to ${hit.address}, which matches deniedHosts entry "${rule.entry}"`,
        );
    }
    const passed = this.#enforceAllowed ? this.#allowedAddresses(host, addresses) : [...addresses];
    if (passed.length === 0) {
      throw new HostPolicyError(
        `host "${host}" is not in allowedHosts [${this.#allowed.map((r) => r.entry).join(', ')}]`,
      );
    }
    if (this.#blockPrivate) {
      // Every resolved address counts, not only the allowed ones: a host that can lead
      // into a private network is refused as a whole.
      const hit = addresses.find((a) => isSpecialAddress(a.address));
      if (hit)
        throw new HostPolicyError(
          `host "${host}" resolves to private/special address ${hit.address} (${this.#blockedBy})`,
        );
    }
    return passed;
  }

  /** The part of the check that needs no address: call it before resolving the host. */
  checkScheme(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new HostPolicyError(
        `scheme "${url.protocol.slice(0, -1)}" is not allowed: only http and https are`,
      );
    }
  }

  /** Entries that can never match, for load-time warnings. */
  static invalidEntries(entries: readonly string[]): string[] {
    return entries.filter((e) => e.trim() !== '' && parseHostRule(e).kind === 'never');
  }

  /** A name entry admits every address; CIDR entries admit only the addresses inside them. */
  #allowedAddresses(host: string, addresses: readonly ResolvedAddress[]): ResolvedAddress[] {
    if (this.#allowed.some((rule) => matchesName(rule, host))) return [...addresses];
    return addresses.filter((a) => this.#allowed.some((rule) => matchesAddress(rule, a)));
  }
}

function parseHostRule(raw: string): HostRule {
  const entry = raw.trim();
  const text = normalizeHost(entry);
  if (text === '') return { entry, kind: 'never' };
  if (text.includes('/')) {
    const block = parseCidr(text);
    return block ? { entry, kind: 'cidr', block } : { entry, kind: 'never' };
  }
  if (text.startsWith('*.')) return { entry, kind: 'suffix', suffix: text.slice(2) };
  return { entry, kind: 'exact', host: canonicalAddress(text) ?? text };
}

function matchesName(rule: HostRule, host: string): boolean {
  switch (rule.kind) {
    case 'exact':
      return host === rule.host || canonicalAddress(host) === rule.host;
    case 'suffix':
      return host === rule.suffix || host.endsWith(`.${rule.suffix}`);
    default:
      return false;
  }
}

function matchesAddress(rule: HostRule, address: ResolvedAddress): boolean {
  return rule.kind === 'cidr' && rule.block.check(address.address, familyName(address));
}

/** Lower case, no IPv6 brackets, no trailing dot: `Example.COM.` and `example.com` are one host. */
export function normalizeHost(text: string): string {
  let host = text.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/** One spelling per IP literal (`0:0::1` → `::1`), so exact entries compare addresses. */
function canonicalAddress(text: string): string | null {
  const version = isIP(text);
  if (version === 0) return null;
  return normalizeHost(new URL(`http://${version === 6 ? `[${text}]` : text}/`).hostname);
}

function parseCidr(text: string): BlockList | null {
  const [address = '', prefixText = ''] = text.split('/');
  const version = isIP(address);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (version === 0 || prefix < 0 || prefix > (version === 4 ? 32 : 128)) return null;
  const block = new BlockList();
  block.addSubnet(address, prefix, version === 4 ? 'ipv4' : 'ipv6');
  return block;
}

function familyName(address: ResolvedAddress): 'ipv4' | 'ipv6' {
  return address.family === 6 ? 'ipv6' : 'ipv4';
}
