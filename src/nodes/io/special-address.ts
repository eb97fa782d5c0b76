import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges `blockPrivateNetworks` refuses: docs/flow-format.md §3.16's list, plus the ranges nothing
 * legitimate is reached at (IANA special-purpose registry): documentation, multicast,
 * reserved and broadcast. A flow has no business sending a request to any of them.
 */
const SPECIAL_IPV4 = [
  '0.0.0.0/8', // "this network": connecting to 0.0.0.0 reaches the local host
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, cloud metadata endpoints
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, 255.255.255.255 (broadcast) included
] as const;

/**
 * IPv6 ranges refused as a whole. Prefixes that embed an IPv4 address in a fixed place
 * (IPv4-mapped, SIIT, NAT64 64:ff9b::/96, 6to4) are not here: their IPv4 is checked instead,
 * so NAT64 and 6to4 paths to public hosts keep working.
 */
const SPECIAL_IPV6 = [
  // IPv4-compatible (deprecated by RFC 4291), `::` and `::1` included. Refused whole: no
  // legitimate use is left, and whether a system routes it to the IPv4 host varies.
  '::/96',
  // Local-use NAT64 (RFC 8215): the operator picks where the IPv4 sits, so it cannot be
  // extracted; like fc00::/7 it only exists inside a private network.
  '64:ff9b:1::/48',
  // Teredo: obsolete tunnelling whose client IPv4 is bit-flipped and attacker-chosen.
  '2001::/32',
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated, still private where used)
  'ff00::/8', // multicast
] as const;

const ipv4Block = blockListOf(SPECIAL_IPV4, 'ipv4');
const ipv6Block = blockListOf(SPECIAL_IPV6, 'ipv6');

/** Whether connecting to `address` (IPv4 or IPv6 text) could reach a private/special host. */
export function isSpecialAddress(address: string): boolean {
  const text = address.split('%')[0] ?? ''; // a zone id (`fe80::1%eth0`) is no part of the address
  const version = isIP(text);
  if (version === 4) return ipv4Block.check(text, 'ipv4');
  if (version !== 6) return true; // not an address at all: never connect to it unchecked
  if (ipv6Block.check(text, 'ipv6')) return true;
  const embedded = embeddedIpv4(text);
  return embedded !== null && ipv4Block.check(embedded, 'ipv4');
}

/** The IPv4 address an IPv6 address carries in a fixed place, or null. */
export function embeddedIpv4(ipv6: string): string | null {
  const w = ipv6Words(ipv6);
  const zero = (from: number, to: number): boolean => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && w[5] === 0xffff) return ipv4Of(w[6], w[7]); // ::ffff:0:0/96 mapped
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return ipv4Of(w[6], w[7]); // ::ffff:0:0:0/96 SIIT
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return ipv4Of(w[6], w[7]); // NAT64
  if (w[0] === 0x2002) return ipv4Of(w[1], w[2]); // 6to4: 2002:AABB:CCDD::/48
  return null;
}

/** The eight 16-bit groups of a valid IPv6 text (`::` expanded, a dotted IPv4 tail split). */
function ipv6Words(text: string): number[] {
  const [head = '', tail] = text.split('::');
  const words = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const first = words(head);
  if (tail === undefined) return first;
  const last = words(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

function ipv4Of(high: number | undefined, low: number | undefined): string {
  const h = high ?? 0;
  const l = low ?? 0;
  return `${h >> 8}.${h & 0xff}.${l >> 8}.${l & 0xff}`;
}

function blockListOf(cidrs: readonly string[], family: 'ipv4' | 'ipv6'): BlockList {
  const block = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    block.addSubnet(address, Number(prefix), family);
  }
  return block;
}
