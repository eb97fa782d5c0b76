import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import proxyAddr from 'proxy-addr';
import type { ServerEnv } from './server-env.js';

/** The names `--trust-proxy` accepts beside addresses and CIDR ranges (proxy-addr's). */
export const TRUSTED_PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'] as const;

/**
 * Who called, for the audit log and the per-address rate limit of callers without a key. Not
 * behind a proxy: the socket's peer. Behind proxies the operator names (`--trust-proxy`):
 * `X-Forwarded-For` read from the right, the first address that is not one of them — so a
 * caller cannot pick its own address by sending the header through a trusted proxy, and a
 * caller that reaches the server directly cannot send it at all. Throws a TypeError naming a
 * malformed entry.
 */
export function clientAddressResolver(
  trustedProxies: readonly string[],
): (c: Context<ServerEnv>) => string | null {
  if (trustedProxies.length === 0) return (c) => incoming(c)?.socket.remoteAddress ?? null;
  const trusted = proxyAddr.compile([...trustedProxies]);
  return (c) => {
    const request = incoming(c);
    if (request?.socket.remoteAddress === undefined) return null;
    return proxyAddr(request, trusted);
  };
}

function incoming(c: Context<ServerEnv>): HttpBindings['incoming'] | undefined {
  return (c.env as HttpBindings | undefined)?.incoming;
}
