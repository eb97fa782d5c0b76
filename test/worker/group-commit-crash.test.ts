import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlow } from '../../src/index.js';
import { PlaitaClient } from '../../src/client/plaita-client.js';
import type { ExecutionStore } from '../../src/store/execution-store.js';
import type { FlowStore } from '../../src/store/flow-store.js';
import type { TaskQueue } from '../../src/queue/task-queue.js';
import { SqliteExecutionStore } from '../../src/backends/sqlite/sqlite-execution-store.js';
import { SqliteFlowStore } from '../../src/backends/sqlite/sqlite-flow-store.js';
import { LocalQueue } from '../../src/backends/sqlite/queue/local-queue.js';
import { PostgresExecutionStore } from '../../src/backends/postgres/postgres-execution-store.js';
import { PostgresFlowStore } from '../../src/backends/postgres/postgres-flow-store.js';
import { RedisStreamQueue } from '../../src/backends/redis/queue/redis-stream-queue.js';
import { RedisExecutionStore, RedisFlowStore } from '../../src/redis.js';
import { encodeValue } from '../../src/state/codec.js';
import { nodeResults } from '../../src/state/checkpoint-context.js';
import { POSTGRES_URL, REDIS_URL, postgresGate, redisGate } from '../support/services.js';

/**
 * Issue 11: kill -9 of a worker while group-commit batches are in flight. Every save the
 * worker was told was stored is stored (the version on disk is at least the last one it
 * logged), and no message was acknowledged before its outcome was durable: a second worker
 * finishes every execution with the right result.
 */
const SCRIPT = fileURLToPath(new URL('./fixtures/group-commit-worker.mjs', import.meta.url));
const STEPS = 40;
const EXECUTIONS = 24;

const flow = parseFlow({
  flow_id: 'long-chain',
  nodes: [
    { type: 'start', id: 'start', next: 'n0' },
    ...Array.from({ length: STEPS }, (_, s) => ({
      type: 'assignment',
      id: `n${s}`,
      output: { out: `$F.add($INPUT.i, ${s})` },
      next: s === STEPS - 1 ? 'end' : `n${s + 1}`,
    })),
    { type: 'end', id: 'end', output: `$NODE.n${STEPS - 1}.out` },
  ],
});

/**
 * Replayable steps (assignments of pure expressions) heavy enough, tens of ms each, that a
 * kill lands mid-run between the ride-along saves (every checkpointIntervalMs of run).
 */
const HEAVY = "$F.len($F.sort($F.split($F.mul('b,a,', 20000), ',')))";
const REPLAYABLE_STEPS = 12;
const REPLAYABLE_EXECUTIONS = 8;
const replayableFlow = parseFlow({
  flow_id: 'replayable-chain',
  nodes: [
    { type: 'start', id: 'start', next: 'r0' },
    ...Array.from({ length: REPLAYABLE_STEPS }, (_, s) => {
      const previous =
        s === 0
          ? { n: '$INPUT.i', tag: "'t'" }
          : { n: `$NODE.r${s - 1}.n`, tag: `$NODE.r${s - 1}.tag` };
      return {
        type: 'assignment',
        id: `r${s}`,
        output: {
          n: `$F.add(${previous.n}, ${HEAVY})`,
          tag: `$F.concat(${previous.tag}, '-', $F.upper('s${s}'))`,
          half: `$F.div(${previous.n}, 3)`,
        },
        next: s === REPLAYABLE_STEPS - 1 ? 'end' : `r${s + 1}`,
      };
    }),
    { type: 'end', id: 'end', output: `$NODE.r${REPLAYABLE_STEPS - 1}` },
  ],
});

interface Runtime {
  store: ExecutionStore;
  flows: FlowStore;
  queue: TaskQueue;
  env: Record<string, string>;
  close(): Promise<void>;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function sqliteRuntime(dir: string): Runtime {
  const path = join(dir, 'plaita.db');
  const store = new SqliteExecutionStore({ path });
  const flows = new SqliteFlowStore({ path });
  const queue = new LocalQueue({ path }, { visibilityTimeoutMs: 1000 });
  return {
    store,
    flows,
    queue,
    env: { STORE: 'sqlite', DB_PATH: path },
    close: async () => void (await Promise.all([store.close(), flows.close(), queue.close()])),
  };
}

function postgresRuntime(): Runtime {
  const schema = `gc_crash_${randomUUID().slice(0, 8)}`;
  const prefix = `gc-crash-${randomUUID().slice(0, 8)}`;
  const source = { connectionString: POSTGRES_URL };
  const store = new PostgresExecutionStore(source, { schema });
  const flows = new PostgresFlowStore(source, { schema });
  const queue = new RedisStreamQueue({ url: REDIS_URL }, { prefix, stream: `${prefix}:tasks` });
  return {
    store,
    flows,
    queue,
    env: { STORE: 'postgres', PG_URL: POSTGRES_URL, PG_SCHEMA: schema, REDIS_URL, PREFIX: prefix },
    close: async () => {
      await Promise.all([store.close(), flows.close(), queue.close()]);
    },
  };
}

function redisRuntime(): Runtime {
  const prefix = `gc-crash-${randomUUID().slice(0, 8)}`;
  const target = { url: REDIS_URL };
  const store = new RedisExecutionStore(target, { prefix });
  const flows = new RedisFlowStore(target, { prefix });
  const queue = new RedisStreamQueue(target, { prefix, stream: `${prefix}:tasks` });
  return {
    store,
    flows,
    queue,
    env: { STORE: 'redis', REDIS_URL, PREFIX: prefix },
    close: async () => {
      await Promise.all([store.close(), flows.close(), queue.close()]);
    },
  };
}

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(SCRIPT, [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`worker exited early (${String(code)})`)));
  });
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** The last version the killed worker was told was saved, per execution. */
function toldSaved(log: string): Map<string, number> {
  const told = new Map<string, number>();
  if (!existsSync(log)) return told;
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const [id, version] = line.split(' ');
    if (id && version) told.set(id, Math.max(told.get(id) ?? 0, Number(version)));
  }
  return told;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function crashMidBatch(runtime: Runtime): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-gc-log-'));
  dirs.push(dir);
  const client = new PlaitaClient(runtime);
  const ids = await Promise.all(
    Array.from({ length: EXECUTIONS }, (_, i) => client.start(flow, { i })),
  );
  const first = join(dir, 'first.log');
  const worker = await startWorker({ ...runtime.env, SAVED_LOG: first });
  // Killed while the 16 executions it runs at once are mid-way: batches are in flight.
  await waitFor(
    () => Promise.resolve(toldSaved(first).size >= 8 && lines(first) > EXECUTIONS * 4),
    60_000,
  );
  await killed(worker);

  const told = toldSaved(first);
  expect(told.size).toBeGreaterThan(0);
  for (const [id, version] of told) {
    const stored = await runtime.store.load(id);
    expect(stored?.version, `execution ${id}`).toBeGreaterThanOrEqual(version);
  }

  const second = await startWorker({ ...runtime.env, SAVED_LOG: join(dir, 'second.log') });
  try {
    await waitFor(async () => {
      const states = await Promise.all(ids.map((id) => runtime.store.load(id)));
      return states.every((s) => s?.status === 'completed');
    }, 60_000);
    const results = await Promise.all(
      ids.map(async (id) => (await runtime.store.load(id))?.result),
    );
    expect(results).toEqual(Array.from({ length: EXECUTIONS }, (_, i) => i + STEPS - 1));
  } finally {
    await killed(second);
  }
}

function lines(log: string): number {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').length - 1 : 0;
}

/**
 * Issue 31: a replayable run killed mid-way (its results ride along, saved every
 * checkpointIntervalMs) resumes from its last save and recomputes the rest: every execution's
 * stored results are byte for byte those of the same inputs run without a kill.
 */
async function replayableResumesIdentical(runtime: Runtime): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'plaita-replay-log-'));
  dirs.push(dir);
  const client = new PlaitaClient(runtime);
  const inputs = Array.from({ length: REPLAYABLE_EXECUTIONS }, (_, i) => ({ i }));
  const interrupted = await Promise.all(inputs.map((input) => client.start(replayableFlow, input)));
  const env = { ...runtime.env, CHECKPOINT_MS: '200' };
  const first = join(dir, 'first.log');
  const worker = await startWorker({ ...env, SAVED_LOG: first });
  // Killed once some execution has a save from the middle of its run.
  await waitFor(async () => {
    const states = await Promise.all(interrupted.map((id) => runtime.store.load(id)));
    return states.some(
      (s) => s?.status === 'running' && Object.keys(nodeResults(s.context)).length > 1,
    );
  }, 60_000);
  await killed(worker);
  const atKill = await Promise.all(interrupted.map((id) => runtime.store.load(id)));
  expect(atKill.filter((s) => s?.status !== 'completed').length).toBeGreaterThan(0);

  const second = await startWorker({ ...env, SAVED_LOG: join(dir, 'second.log') });
  try {
    const uninterrupted = await Promise.all(
      inputs.map((input) => client.start(replayableFlow, input)),
    );
    const ids = [...interrupted, ...uninterrupted];
    await waitFor(async () => {
      const states = await Promise.all(ids.map((id) => runtime.store.load(id)));
      return states.every((s) => s?.status === 'completed');
    }, 90_000);
    for (let i = 0; i < inputs.length; i++) {
      const [resumed, reference] = await Promise.all([
        runtime.store.load(interrupted[i]!),
        runtime.store.load(uninterrupted[i]!),
      ]);
      expect(encodeValue(nodeResults(resumed!.context)), `input ${i}`).toBe(
        encodeValue(nodeResults(reference!.context)),
      );
      expect(encodeValue(resumed!.result)).toBe(encodeValue(reference!.result));
    }
  } finally {
    await killed(second);
  }
}

const [pgGate, rGate] = await Promise.all([postgresGate(), redisGate()]);
const gate = pgGate.available ? rGate : pgGate;

describe('group commit survives kill -9 mid-batch', () => {
  it('SQLite store + local queue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaita-gc-'));
    dirs.push(dir);
    const runtime = sqliteRuntime(dir);
    try {
      await crashMidBatch(runtime);
    } finally {
      await runtime.close();
    }
  }, 120_000);

  gate.it(
    'PostgreSQL store + Redis queue',
    async () => {
      const runtime = postgresRuntime();
      try {
        await crashMidBatch(runtime);
      } finally {
        await runtime.close();
      }
    },
    120_000,
  );

  rGate.it(
    'Redis store + Redis queue (the saves of a tick in one script)',
    async () => {
      const runtime = redisRuntime();
      try {
        await crashMidBatch(runtime);
      } finally {
        await runtime.close();
      }
    },
    120_000,
  );
});

describe('a replayable run killed mid-way resumes with identical results', () => {
  rGate.it(
    'Redis store + Redis queue',
    async () => {
      const runtime = redisRuntime();
      try {
        await replayableResumesIdentical(runtime);
      } finally {
        await runtime.close();
      }
    },
    180_000,
  );

  it('SQLite store + local queue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaita-replay-'));
    dirs.push(dir);
    const runtime = sqliteRuntime(dir);
    try {
      await replayableResumesIdentical(runtime);
    } finally {
      await runtime.close();
    }
  }, 180_000);
});
