import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { normalizeHost, type ResolvedAddress } from './host-policy.js';
import { HostResolutionError } from '../../errors/node-errors.js';

/**
 * Every address of a URL host: an IP literal is its own address, a name goes through the
 * system resolver (so `/etc/hosts` and `localhost` behave as for any client). The policy is
 * checked against these and the connection is pinned to them, so nothing resolves twice.
 */
export async function resolveHost(hostname: string): Promise<ResolvedAddress[]> {
  const host = normalizeHost(hostname);
  if (host === '') throw new HostResolutionError('the URL has no host');
  const version = isIP(host);
  if (version !== 0) return [{ address: host, family: version === 6 ? 6 : 4 }];
  let found: Array<{ address: string; family: number }>;
  try {
    found = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new HostResolutionError(
      `cannot resolve host "${host}"${typeof code === 'string' ? ` (${code})` : ''}`,
      { cause: error },
    );
  }
  if (found.length === 0)
    throw new HostResolutionError(`cannot resolve host "${host}": no addresses`);
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}
