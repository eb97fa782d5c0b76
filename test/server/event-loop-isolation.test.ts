import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body } from './support/api-harness.js';
import { call, type PlaitaProcess, startServe } from './support/serve-process.js';

/**
 * Issue 35 part 2: one tenant's CPU-bound work must not stall the server. 16 inline starts whose
 * code node never ends and 20 dry-runs of an expression that sorts millions of values, all in
 * flight at once, while /healthz and another tenant's read are answered within 100 ms at p99.
 * Code nodes and dry-runs run on worker threads (2 each), tenants taking turns.
 *
 * Measured on the embedded default (SQLite + the in-process worker of 8), where the worker
 * shares the server's process.
 */

const runaway = {
  flow_id: 'runaway',
  nodes: [
    { type: 'start', id: 'start', next: 'spin' },
    { type: 'code', id: 'spin', code: 'function run() { while (true) {} }', next: 'end' },
    { type: 'end', id: 'end', output: '$NODE.spin' },
  ],
};

const heavy = {
  flow_id: 'heavy',
  nodes: [
    { type: 'start', id: 'start', next: 'sort' },
    {
      type: 'assignment',
      id: 'sort',
      output: '$F.len($F.sort($F.mul($INPUT.a, 250000)))',
      next: 'end',
    },
    { type: 'end', id: 'end', output: '$NODE.sort' },
  ],
};

const echo = {
  flow_id: 'echo',
  nodes: [
    { type: 'start', id: 'start', next: 'end' },
    { type: 'end', id: 'end', output: '$INPUT' },
  ],
};

let dir: string;
let serve: PlaitaProcess;
let tenantA: string;
let tenantB: string;

async function keyOf(tenant: string): Promise<string> {
  const created = await call(serve.url, '/v1/api-keys', serve.adminKey, {
    json: { name: `ops-${tenant}`, role: 'admin', tenant },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  return (await body<{ token: string }>(created)).token;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plaita-loop-'));
  serve = await startServe(['--store', `sqlite:${join(dir, 'plaita.db')}`, '--rate-limit', '0'], {
    cwd: dir,
    // Each runaway holds a thread for its whole CPU limit: half a second keeps the test short.
    env: { PLAITA_CODE_TIMEOUT_MS: '500' },
  });
  [tenantA, tenantB] = await Promise.all([keyOf('a'), keyOf('b')]);
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function p99(samples: number[]): number {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

async function timed(path: string, token: string | null): Promise<number> {
  const from = performance.now();
  const response = await call(serve.url, path, token);
  await response.arrayBuffer();
  expect(response.status).toBe(200);
  return performance.now() - from;
}

describe('CPU-bound flows and the HTTP event loop', () => {
  it(
    'answers /healthz and another tenant’s read within 100 ms p99 while 16 runaway code nodes and 20 heavy dry-runs are in flight',
    // A wall-clock figure on a 2-core machine where another test file may run beside this one:
    // tried up to three times. Without the threads every try fails (p99 2.3 s); with them ~60 ms.
    { timeout: 120_000, retry: 2 },
    async () => {
      const started = await call(serve.url, '/v1/executions?wait=10', tenantB, {
        json: { flow: echo, input: { hello: 'b' } },
      });
      expect(started.status, await started.clone().text()).toBe(201);
      const { executionId: bRead } = await body<{ executionId: string }>(started);
      // A server that has run a code node and a dry-run before: its threads are up and its
      // modules loaded (a first use costs a one-off 100-300 ms on this machine).
      const warm = await call(serve.url, '/v1/executions?wait=10', tenantA, {
        json: {
          flow: {
            ...runaway,
            nodes: [
              runaway.nodes[0],
              { ...runaway.nodes[1], code: 'function run() { return 1 }' },
              runaway.nodes[2],
            ],
          },
          input: {},
        },
      });
      expect(await body<{ status: string }>(warm)).toMatchObject({ status: 'completed' });
      const light = await call(serve.url, '/v1/flows/dry-run', tenantA, {
        json: { flow: heavy, input: { a: [] } },
      });
      expect(await body<{ status: string }>(light)).toMatchObject({ status: 'completed' });
      await timed(`/v1/executions/${bRead}`, tenantB);

      const runs = await Promise.all(
        Array.from({ length: 16 }, async () => {
          const response = await call(serve.url, '/v1/executions', tenantA, {
            json: { flow: runaway, input: {} },
          });
          expect(response.status, await response.clone().text()).toBe(201);
          return (await body<{ executionId: string }>(response)).executionId;
        }),
      );
      let dryRunsDone = 0;
      const dryRuns = Promise.all(
        Array.from({ length: 20 }, async () => {
          const response = await call(serve.url, '/v1/flows/dry-run', tenantA, {
            json: { flow: heavy, input: { a: [3, 1, 2] } },
          });
          const outcome = await body<Record<string, unknown>>(response);
          dryRunsDone++;
          return { status: response.status, outcome };
        }),
      );

      // Probed for as long as the dry-runs are in flight (4 s at least: the runaways, one tenant's on one thread, take 8).
      const health: number[] = [];
      const reads: number[] = [];
      const from = performance.now();
      while (dryRunsDone < 20 || performance.now() - from < 4_000) {
        const [h, r] = await Promise.all([
          timed('/healthz', null),
          timed(`/v1/executions/${bRead}`, tenantB),
        ]);
        health.push(h);
        reads.push(r);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(health.length).toBeGreaterThan(40);
      expect(p99(health), `healthz latencies ${health.map(Math.round).join(' ')}`).toBeLessThan(
        100,
      );
      expect(p99(reads), `read latencies ${reads.map(Math.round).join(' ')}`).toBeLessThan(100);

      // The work itself was done: each dry-run computed its result, or was stopped by its
      // evaluation budget (time-based, so a busy machine may trip it); runaways by their CPU limit.
      for (const { status, outcome } of await dryRuns) {
        expect(status).toBe(200);
        const done =
          outcome.status === 'completed'
            ? String(outcome.result)
            : (outcome.error as { type: string }).type;
        expect(['750000', 'expression_budget']).toContain(done);
      }
      await expect
        .poll(
          async () => {
            const views = await Promise.all(
              runs.map(async (id) =>
                body<{ status: string; error?: { type: string } }>(
                  await call(serve.url, `/v1/executions/${id}`, tenantA),
                ),
              ),
            );
            return views.map((view) => `${view.status}:${view.error?.type ?? ''}`);
          },
          { timeout: 60_000, interval: 500 },
        )
        .toEqual(Array.from({ length: 16 }, () => 'error:code_timeout'));
    },
  );
});
