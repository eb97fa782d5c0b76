import { describe, expect, it } from 'vitest';
import {
  HostPolicy,
  HostPolicyError,
  type HostPolicyOptions,
  type ResolvedAddress,
} from '../../../src/nodes/io/host-policy.js';
import { resolveHost } from '../../../src/nodes/io/resolve-host.js';

const PUBLIC: ResolvedAddress[] = [{ address: '93.184.216.34', family: 4 }];

function policy(options: Partial<HostPolicyOptions>): HostPolicy {
  return new HostPolicy({
    allowedHosts: [],
    deniedHosts: [],
    blockPrivateNetworks: false,
    ...options,
  });
}

function refusal(p: HostPolicy, url: string, addresses: ResolvedAddress[] = PUBLIC): string {
  try {
    p.check(new URL(url), addresses);
  } catch (error) {
    expect(error).toBeInstanceOf(HostPolicyError);
    return (error as Error).message;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('HostPolicy names', () => {
  it('matches exact hosts case-insensitively, ignoring a trailing dot', () => {
    const p = policy({ deniedHosts: ['API.Example.com'] });
    expect(refusal(p, 'http://api.example.COM/x')).toBe(
      'host "api.example.com" matches deniedHosts entry "API.Example.com"',
    );
    expect(refusal(p, 'http://api.example.com./x')).toContain('deniedHosts');
    expect(p.check(new URL('http://other.example.com/'), PUBLIC)).toEqual(PUBLIC);
  });

  it('*.suffix matches the suffix itself and any subdomain, not look-alikes', () => {
    const p = policy({ allowedHosts: ['*.example.com'] });
    expect(p.check(new URL('https://example.com/'), PUBLIC)).toEqual(PUBLIC);
    expect(p.check(new URL('https://a.b.example.com/'), PUBLIC)).toEqual(PUBLIC);
    expect(refusal(p, 'https://badexample.com/')).toBe(
      'host "badexample.com" is not in allowedHosts [*.example.com]',
    );
    expect(refusal(p, 'https://example.com.evil.org/')).toContain('not in allowedHosts');
  });

  it('compares IP literal entries as addresses', () => {
    const p = policy({ deniedHosts: ['0:0::1'] });
    expect(refusal(p, 'http://[::1]:8080/', [{ address: '::1', family: 6 }])).toContain(
      'matches deniedHosts entry "0:0::1"',
    );
  });

  it('checks deniedHosts before allowedHosts', () => {
    const p = policy({ allowedHosts: ['*.example.com'], deniedHosts: ['admin.example.com'] });
    expect(refusal(p, 'http://admin.example.com/')).toContain('deniedHosts');
  });

  it('refuses schemes other than http and https (redirect hops)', () => {
    expect(refusal(policy({}), 'ftp://example.com/file')).toContain('scheme "ftp"');
  });

  it('a non-empty allowedHosts of blank entries admits nothing', () => {
    expect(refusal(policy({ allowedHosts: [' '] }), 'http://example.com/')).toContain(
      'not in allowedHosts',
    );
  });
});

describe('HostPolicy addresses', () => {
  const mixed: ResolvedAddress[] = [
    { address: '10.1.2.3', family: 4 },
    { address: '93.184.216.34', family: 4 },
  ];

  it('CIDR entries match resolved addresses, and only matching addresses are returned for pinning', () => {
    const p = policy({ allowedHosts: ['10.0.0.0/8'] });
    expect(p.check(new URL('http://intranet.example/'), mixed)).toEqual([
      { address: '10.1.2.3', family: 4 },
    ]);
    expect(refusal(p, 'http://www.example/', PUBLIC)).toContain('not in allowedHosts [10.0.0.0/8]');
  });

  it('a denied CIDR refuses the host when any address matches', () => {
    const p = policy({ deniedHosts: ['93.184.0.0/16'] });
    expect(refusal(p, 'http://www.example/', mixed)).toBe(
      'host "www.example" resolves to 93.184.216.34, which matches deniedHosts entry "93.184.0.0/16"',
    );
  });

  it('IPv6 CIDR entries and IPv4-mapped IPv6 addresses against IPv4 entries', () => {
    expect(
      refusal(policy({ deniedHosts: ['2001:db8::/32'] }), 'http://v6.example/', [
        { address: '2001:db8::5', family: 6 },
      ]),
    ).toContain('2001:db8::/32');
    expect(
      refusal(policy({ deniedHosts: ['127.0.0.0/8'] }), 'http://[::ffff:127.0.0.1]/', [
        { address: '::ffff:7f00:1', family: 6 },
      ]),
    ).toContain('127.0.0.0/8');
  });

  it('reports CIDR entries that can never match', () => {
    expect(
      HostPolicy.invalidEntries(['10.0.0.0/8', '10.0.0.0/33', 'example.com', 'nonsense/8', '']),
    ).toEqual(['10.0.0.0/33', 'nonsense/8']);
  });

  it.each([
    ['127.0.0.1', 4],
    ['10.0.0.1', 4],
    ['172.31.255.255', 4],
    ['192.168.1.1', 4],
    ['169.254.169.254', 4],
    ['100.64.0.1', 4],
    ['198.19.0.1', 4],
    ['192.0.0.8', 4],
    ['0.0.0.0', 4],
    ['::1', 6],
    ['::', 6],
    ['fd00::1', 6],
    ['fe80::1', 6],
    ['::ffff:127.0.0.1', 6],
    ['::ffff:a00:1', 6],
  ] as const)('blockPrivateNetworks refuses %s', (address, family) => {
    const message = refusal(policy({ blockPrivateNetworks: true }), 'http://target.example/', [
      { address, family },
    ]);
    expect(message).toBe(
      `host "target.example" resolves to private/special address ${address} (blockPrivateNetworks)`,
    );
  });

  it('blockPrivateNetworks admits public addresses and refuses a host with any private address', () => {
    const p = policy({ blockPrivateNetworks: true });
    expect(
      p.check(new URL('http://www.example/'), [
        { address: '8.8.8.8', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ]),
    ).toHaveLength(2);
    expect(refusal(p, 'http://www.example/', mixed)).toContain('10.1.2.3');
  });
});

describe('resolveHost', () => {
  it('returns IP literals without a lookup and resolves names', async () => {
    expect(await resolveHost('[::1]')).toEqual([{ address: '::1', family: 6 }]);
    expect(await resolveHost('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    const localhost = await resolveHost('localhost');
    expect(localhost.length).toBeGreaterThan(0);
    expect(localhost.every((a) => a.address === '127.0.0.1' || a.address === '::1')).toBe(true);
  });

  it('fails with the host name when nothing resolves', async () => {
    await expect(resolveHost('no-such-host.invalid')).rejects.toThrow(
      /cannot resolve host "no-such-host.invalid"/,
    );
  });
});
