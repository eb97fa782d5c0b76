import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlow } from '../../../src/engine/run-flow.js';
import {
  HostPolicy,
  type HostPolicyOptions,
  type ResolvedAddress,
} from '../../../src/nodes/io/host-policy.js';
import { HostPolicyError } from '../../../src/errors/node-errors.js';
import { resolveHost } from '../../../src/nodes/io/resolve-host.js';
import { embeddedIpv4, isSpecialAddress } from '../../../src/nodes/io/special-address.js';
import { silentLogger } from '../../../src/util/logger.js';
import { TestServer, sendJson } from './test-server.js';

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

describe('SSRF address classes', () => {
  const refused = (address: string): string =>
    refusal(policy({ blockPrivateNetworks: true }), 'http://target.example/', [
      { address, family: address.includes(':') ? 6 : 4 },
    ]);

  it.each([
    [
      'IPv4-compatible ::/96 (refused whole)',
      ['::127.0.0.1', '::7f00:1', '::10.0.0.1', '::8.8.8.8'],
    ],
    [
      'NAT64 64:ff9b::/96 embedding a private IPv4',
      ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::169.254.169.254'],
    ],
    ['local-use NAT64 64:ff9b:1::/48 (refused whole)', ['64:ff9b:1::808:808', '64:ff9b:1:ffff::1']],
    [
      '6to4 2002::/16 embedding a private IPv4',
      ['2002:7f00:1::1', '2002:c0a8:101::', '2002:a9fe:a9fe::1'],
    ],
    ['Teredo 2001::/32 (refused whole)', ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1']],
    ['IPv4 multicast 224.0.0.0/4', ['224.0.0.1', '239.255.255.250']],
    ['IPv6 multicast ff00::/8', ['ff02::1', 'ff05::1:3']],
    ['broadcast 255.255.255.255', ['255.255.255.255']],
    ['reserved 240.0.0.0/4', ['240.0.0.1', '250.1.2.3']],
    ['IPv4 documentation ranges', ['192.0.2.1', '198.51.100.7', '203.0.113.9']],
    ['IPv6 documentation ranges', ['2001:db8::1', '3fff::1']],
    ['site-local fec0::/10', ['fec0::1']],
    [
      'IPv4-mapped and SIIT forms embedding a special IPv4',
      ['::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:224.0.0.1', '::ffff:0:7f00:1'],
    ],
    ['link-local with a zone id', ['fe80::1%eth0']],
  ])('blockPrivateNetworks refuses %s', (_name, addresses) => {
    for (const address of addresses) {
      expect(refused(address)).toBe(
        `host "target.example" resolves to private/special address ${address} (blockPrivateNetworks)`,
      );
    }
  });

  it.each([
    '8.8.8.8',
    '2606:4700::1111',
    '::ffff:8.8.8.8', // IPv4-mapped public
    '64:ff9b::8.8.8.8', // NAT64 to a public host (IPv6-only networks with DNS64)
    '2002:808:808::1', // 6to4 of a public host
    '2001:4860:4860::8888', // 2001::/23 is not all Teredo
    '223.255.255.255',
    '192.0.3.1',
  ])('blockPrivateNetworks admits the public address %s', (address) => {
    expect(isSpecialAddress(address)).toBe(false);
  });

  it('extracts the IPv4 of mapped, SIIT, NAT64 and 6to4 addresses only', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:0:a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('64:ff9b::c0a8:101')).toBe('192.168.1.1');
    expect(embeddedIpv4('2002:a9fe:a9fe:1::5')).toBe('169.254.169.254');
    expect(embeddedIpv4('2606:4700::1111')).toBeNull();
    expect(embeddedIpv4('64:ff9b:0:0:1::808:808')).toBeNull();
  });

  describe('against a real server on 127.0.0.1', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await TestServer.start();
      server.route('/json', (_req, res) => sendJson(res, 200, { reached: true }));
    });
    afterAll(() => server.close());

    const call = (url: string): Promise<unknown> =>
      runFlow(
        {
          flow_id: 'ssrf',
          nodes: [
            { type: 'start', id: 'start', next: 'call' },
            { type: 'http', id: 'call', next: 'end', url, blockPrivateNetworks: true },
            { type: 'end', id: 'end', output: '$NODE.call' },
          ],
        },
        {},
        { logger: silentLogger },
      );

    it.each(['[::127.0.0.1]', '[::ffff:127.0.0.1]', '[64:ff9b::127.0.0.1]', '[2002:7f00:1::1]'])(
      'http://%s:PORT/ is refused before any connection',
      async (host) => {
        const before = server.requests.length;
        await expect(call(server.url('/json', host))).rejects.toMatchObject({
          cause: {
            code: 1002,
            message: expect.stringContaining('private/special address') as unknown,
          },
        });
        expect(server.requests.length).toBe(before);
      },
    );
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
