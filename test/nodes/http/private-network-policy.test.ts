import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlow } from '../../../src/engine/run-flow.js';
import { DEFAULT_LIMITS, type RuntimeLimits } from '../../../src/flow/runtime-limits.js';
import { httpLimits } from '../../../src/nodes/io/http-limits.js';
import { silentLogger } from '../../../src/util/logger.js';
import { TestServer, sendJson } from './test-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await TestServer.start();
  server.route('/json', (_req, res) => sendJson(res, 200, { reached: true }));
});

afterAll(() => server.close());

function run(http: Record<string, unknown>, limits: Partial<RuntimeLimits>): Promise<unknown> {
  const flow = {
    flow_id: 'private-networks',
    nodes: [
      { type: 'start', id: 'start', next: 'call' },
      { type: 'http', id: 'call', next: 'end', url: server.url('/json'), ...http },
      { type: 'end', id: 'end', output: '$NODE.call' },
    ],
  };
  return runFlow(flow, {}, { logger: silentLogger, limits });
}

describe('operator policy for private networks (limits.privateNetworks)', () => {
  it.each([{ blockPrivateNetworks: false }, {}])(
    'deny refuses a flow that does not block (%j), naming the operator policy',
    async (node) => {
      const before = server.requests.length;
      await expect(run(node, { privateNetworks: 'deny' })).rejects.toMatchObject({
        type: 'node_error',
        cause: {
          code: 1002,
          message: expect.stringContaining(
            'resolves to private/special address 127.0.0.1 (privateNetworks=deny)',
          ) as unknown,
        },
      });
      expect(server.requests.length).toBe(before);
    },
  );

  it('deny beats an allowedHosts entry naming the private range', async () => {
    await expect(
      run({ allowedHosts: ['127.0.0.0/8'] }, { privateNetworks: 'deny' }),
    ).rejects.toMatchObject({ cause: { code: 1002 } });
  });

  it('allow admits a node that asked for the block', async () => {
    expect(await run({ blockPrivateNetworks: true }, { privateNetworks: 'allow' })).toEqual({
      reached: true,
    });
  });

  it("flow (the default) lets the node's blockPrivateNetworks decide", async () => {
    expect(await run({ blockPrivateNetworks: false }, { privateNetworks: 'flow' })).toEqual({
      reached: true,
    });
    await expect(run({ block_private_networks: true }, {})).rejects.toMatchObject({
      cause: { code: 1002, message: expect.stringContaining('(blockPrivateNetworks)') as unknown },
    });
  });
});

describe('httpLimits', () => {
  const node = (blockPrivateNetworks: boolean, maxResponseBytes: number | null = null) => ({
    blockPrivateNetworks,
    maxResponseBytes,
  });

  it.each([
    ['flow', false, false],
    ['flow', true, true],
    ['deny', false, true],
    ['deny', true, true],
    ['allow', false, false],
    ['allow', true, false],
  ] as const)('privateNetworks=%s, node blocks=%s → blocked=%s', (policy, asks, blocked) => {
    expect(
      httpLimits(node(asks), { ...DEFAULT_LIMITS, privateNetworks: policy }).blockPrivateNetworks,
    ).toBe(blocked);
  });

  it('the body cap is the smaller of the node and the operator; a bad ceiling keeps the default', () => {
    const limits = (maxResponseBytes: number) => ({ ...DEFAULT_LIMITS, maxResponseBytes });
    expect(httpLimits(node(false, 500), limits(1000)).maxResponseBytes).toBe(500);
    expect(httpLimits(node(false, 5000), limits(1000)).maxResponseBytes).toBe(1000);
    expect(httpLimits(node(false), limits(1000)).maxResponseBytes).toBe(1000);
    expect(httpLimits(node(false), limits(Number.NaN)).maxResponseBytes).toBe(
      DEFAULT_LIMITS.maxResponseBytes,
    );
    expect(httpLimits(node(false), limits(0)).maxResponseBytes).toBe(
      DEFAULT_LIMITS.maxResponseBytes,
    );
  });
});
