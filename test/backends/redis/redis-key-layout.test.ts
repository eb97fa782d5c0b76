import { readdirSync, readFileSync } from 'node:fs';
import { Redis, type Command } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newExecutionState, type ExecutionState } from '../../../src/state/execution-state.js';
import { RedisExecutionStore } from '../../../src/backends/redis/store/redis-execution-store.js';
import { RedisFlowStore } from '../../../src/backends/redis/store/redis-flow-store.js';
import { crc16, keySlot } from '../../../src/backends/redis/key-slot.js';
import { RedisKeys } from '../../../src/backends/redis/store/redis-keys.js';
import { SCRIPTS } from '../../../src/backends/redis/store/redis-store-scripts.js';
import { REDIS_URL, redisGate, uniqueName } from '../../support/services.js';

/**
 * The key layout: every key of one execution hashes to one cluster slot, every script call
 * touches keys of one slot, and no code path ever sends SCAN or KEYS. The store runs on a
 * borrowed client whose every command is recorded for the whole file.
 */
const gate = await redisGate();
const SOURCE_DIR = new URL('../../../src/backends/redis/store/', import.meta.url);

interface Recorded {
  name: string;
  args: string[];
}

const prefix = uniqueName('plaita-layout');
const keys = new RedisKeys(prefix);
let client: Redis;
let store: RedisExecutionStore;
let flows: RedisFlowStore;
const recorded: Recorded[] = [];

function state(
  id: string,
  tenantId: string,
  nodes: Record<string, unknown>,
  extra: Partial<ExecutionState> = {},
): ExecutionState {
  return newExecutionState({
    executionId: id,
    tenantId,
    flowId: 'billing',
    flowHash: 'f'.repeat(64),
    context: {
      $INPUT: {},
      $NODE: nodes,
      $VISITS: Object.fromEntries(Object.keys(nodes).map((n) => [n, 1])),
    },
    ...extra,
  });
}

gate.describe('Redis key layout', () => {
  beforeAll(async () => {
    client = new Redis(REDIS_URL, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command: Command, stream?: never) => {
      recorded.push({
        name: command.name.toUpperCase(),
        args: command.args.map((a) => (Buffer.isBuffer(a) ? a.toString('utf8') : String(a))),
      });
      return send(command, stream);
    };
    await client.connect();
    store = new RedisExecutionStore({ client }, { prefix, terminalTtlMs: 60_000 });
    flows = new RedisFlowStore({ client }, { prefix });

    // Exercise every operation of both stores, across two tenants, with awkward ids.
    for (const tenant of ['acme', 'we{ir}d:tenant']) {
      const base = state('run-1', tenant, { fetch: { ok: 1 }, 'odd}{id': [1, 2] });
      await store.save(base);
      await store.save(
        {
          ...base,
          version: 1,
          context: { ...base.context, $NODE: { ...(base.context.$NODE as object), more: 'x' } },
        },
        { changedNodes: ['more'] },
      );
      const lease = (await store.acquireLease('run-1', {
        tenantId: tenant,
        owner: 'w1',
        ttlMs: 30_000,
      }))!;
      await store.renewLease('run-1', {
        tenantId: tenant,
        owner: 'w1',
        generation: lease.generation,
        ttlMs: 30_000,
      });
      await store.getLease('run-1', { tenantId: tenant });
      await store.requestCancel('run-1', { tenantId: tenant });
      await store.isCancelRequested('run-1', { tenantId: tenant });
      await store.save(
        { ...base, version: 2, status: 'completed' },
        { fence: { generation: lease.generation } },
      );
      await store.releaseLease('run-1', {
        tenantId: tenant,
        owner: 'w1',
        generation: lease.generation,
      });
      await store.load('run-1', { tenantId: tenant });
      await store.claimExecution('run-1', { tenantId: tenant, owner: 'w2', ttlMs: 30_000 });
      await store.list({
        tenantId: tenant,
        status: ['completed', 'running'],
        flowId: 'billing',
        limit: 1,
      });
      await store.list({ tenantId: tenant, createdAfter: '2000-01-01T00:00:00.000Z' });
      await store.save(state('run-2', tenant, { a: 1 }));
      await store.delete('run-2', { tenantId: tenant });
    }
    await store.sweepExpired(Date.now() + 3_600_000);
    for (const tenantId of ['default', 'we{ir}d:tenant']) {
      await flows.put({ id: 'billing', version: '1', nodes: [] }, { tenantId });
      await flows.getByVersion('billing', null, { tenantId });
      await flows.getByHash('0'.repeat(64), { tenantId });
    }
  });

  afterAll(async () => {
    await store?.close();
    await flows?.close();
    // Clean-up of this file's keys, by name (no SCAN needed: we know what we wrote).
    const touched = new Set(recorded.flatMap((r) => keysOf(r)));
    if (touched.size > 0) await client.del(...touched);
    client.disconnect();
  });

  it('keySlot agrees with Redis: the CRC16/XMODEM check value and CLUSTER KEYSLOT examples', () => {
    expect(crc16('123456789')).toBe(0x31c3);
    expect(keySlot('somekey')).toBe(11058);
    expect(keySlot('foo{hash_tag}')).toBe(2515);
    expect(keySlot('foo')).toBe(12182);
    // An empty tag does not count: the whole key is hashed.
    expect(keySlot('{}foo')).toBe(crc16('{}foo') % 16384);
  });

  gate.it(
    'all keys of one execution share one hash slot, and it is the slot of {tenant:executionId}',
    async () => {
      await store.save(state('slot-check', 'acme', { a: 1, b: 2 }));
      await store.acquireLease('slot-check', { tenantId: 'acme', owner: 'w', ttlMs: 1000 });
      const exec = keys.execution('acme', 'slot-check');
      expect(await client.exists(exec.header, exec.nodes)).toBe(2);
      const slots = new Set([exec.header, exec.nodes].map(keySlot));
      expect(slots.size).toBe(1);
      expect([...slots][0]).toBe(crc16('acme:slot-check') % 16384);
      // The tenant's indexes share the tenant's slot (one script updates them all).
      const idx = keys.tenantIndex('acme');
      expect(
        new Set(
          [
            idx.all,
            idx.status('queued'),
            idx.status('error'),
            idx.flow('billing'),
            idx.hash('f'.repeat(64)),
          ].map(keySlot),
        ).size,
      ).toBe(1);
      await store.delete('slot-check', { tenantId: 'acme' });
    },
  );

  gate.it('every script call touches keys of a single slot, and nothing sends MULTI', () => {
    const scriptCalls = recorded.filter((r) => r.name === 'EVALSHA' || r.name === 'EVAL');
    expect(scriptCalls.length).toBeGreaterThan(20);
    for (const call of scriptCalls) {
      // A save call carries the saves of one tick (save-states.lua): on a single Redis each
      // also updates the listing indexes in its own script; its first two keys are the
      // execution's. On a cluster it sends only those, one slot per call (test/redis-cluster).
      const groups =
        // EVALSHA names the script by sha, its NOSCRIPT fallback EVAL by its text.
        [SCRIPTS.saveStates.source.sha, SCRIPTS.saveStates.source.text].includes(
          String(call.args[0]),
        )
          ? saveKeyGroups(call).map((keys) => keys.slice(0, 2))
          : [keysOf(call)];
      for (const keys of groups) {
        const slots = new Set(keys.map(keySlot));
        expect(slots.size, keys.join(' ')).toBeLessThanOrEqual(1);
      }
    }
    // Multi-key writes go through scripts (checked above): a MULTI would escape that check.
    expect(recorded.some((r) => r.name === 'MULTI' || r.name === 'EXEC')).toBe(false);
  });

  gate.it('no command path sends SCAN or KEYS (recorded commands and the sources)', () => {
    const names = new Set(recorded.map((r) => r.name));
    for (const forbidden of ['SCAN', 'KEYS', 'HSCAN', 'SSCAN', 'ZSCAN'])
      expect(names.has(forbidden), forbidden).toBe(false);
    for (const file of readdirSync(SOURCE_DIR)) {
      const text = readFileSync(new URL(file, SOURCE_DIR), 'utf8');
      if (file.endsWith('.lua'))
        expect(text, file).not.toMatch(/redis\.call\(\s*'(?:keys|scan|hscan|sscan|zscan)'/i);
      // Driver calls are made on `client`, `c` or `tx`; `Object.keys` is no Redis command.
      if (file.endsWith('.ts'))
        expect(text, file).not.toMatch(
          /\b(?:client|c|tx)\.(?:scan|keys|hscan|sscan|zscan|scanStream)\b|['"`](?:SCAN|KEYS)['"`]/i,
        );
    }
  });

  gate.it(
    'every script has the header the style guide asks for: purpose, KEYS, ARGV, returns',
    () => {
      const scripts = readdirSync(SOURCE_DIR).filter((f) => f.endsWith('.lua'));
      expect(scripts.length).toBeGreaterThanOrEqual(10);
      for (const file of scripts) {
        const text = readFileSync(new URL(file, SOURCE_DIR), 'utf8');
        const header = text.slice(0, text.indexOf(']]'));
        expect(header, file).toMatch(new RegExp(`^--\\[\\[\\n${file.replace('.lua', '')}: `));
        expect(header, file).toMatch(/KEYS\[1/);
        expect(header, file).toMatch(/Returns/);
        if (/ARGV\[1\]/.test(text.slice(header.length))) expect(header, file).toMatch(/ARGV\[1\]/);
      }
    },
  );
});

/** The key arguments of a recorded command (scripts: after numkeys; others: by command shape). */
/** Each save's own keys in a save-states.lua call (ARGV: N, then per save k, a, its a args). */
function saveKeyGroups(r: Recorded): string[][] {
  const keys = keysOf(r);
  const argv = r.args.slice(2 + keys.length);
  const groups: string[][] = [];
  for (let at = 1, from = 0; groups.length < Number(argv[0]);) {
    const k = Number(argv[at]);
    groups.push(keys.slice(from, from + k));
    from += k;
    at += 2 + Number(argv[at + 1]);
  }
  return groups;
}

function keysOf(r: Recorded): string[] {
  switch (r.name) {
    case 'EVALSHA':
    case 'EVAL':
      return r.args.slice(2, 2 + Number(r.args[1]));
    case 'MULTI':
    case 'EXEC':
    case 'INFO':
    case 'QUIT':
    case 'SCRIPT':
    case 'PING':
      return [];
    default:
      return r.args.length > 0 ? [r.args[0]!] : [];
  }
}
