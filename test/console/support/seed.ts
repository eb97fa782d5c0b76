import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { LocalQueue } from '../../../src/backends/sqlite/queue/local-queue.js';
import { ROOT, type ConsoleServer } from './console-server.js';

export const approvalFlow = JSON.parse(
  readFileSync(join(ROOT, 'examples/approval.json'), 'utf8'),
) as Record<string, unknown>;
export const echoFlow = JSON.parse(
  readFileSync(join(ROOT, 'examples/echo.json'), 'utf8'),
) as Record<string, unknown>;

export const expenseInput = (id: string) => ({
  id,
  requester: 'Bob',
  amount: 42,
  reason: 'train ticket',
  approvers: ['alice@example.com'],
});

export interface ExecutionView {
  executionId: string;
  status: string;
  flowId: string | null;
  flowVersion: string | null;
  flowHash: string | null;
}

async function ok<T>(answer: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Saves and publishes a flow document through the API. */
export async function publish(server: ConsoleServer, doc: Record<string, unknown>): Promise<void> {
  const path = `/v1/flows/${String(doc.flow_id)}/versions/${String(doc.version)}`;
  await ok(server.api('PUT', path, doc), `save ${path}`);
  await ok(server.api('POST', `${path}/publish`), `publish ${path}`);
}

/** Starts an execution and waits (server side) until it settles or waits. */
export function start(
  server: ConsoleServer,
  body: Record<string, unknown>,
): Promise<ExecutionView> {
  return ok(server.api<ExecutionView>('POST', '/v1/executions?wait=10s', body), 'start');
}

/** A flow whose http node calls `url` and fails on a 4xx/5xx answer. */
export function fetcherFlow(url: string): Record<string, unknown> {
  return {
    flow_id: 'fetcher',
    version: '1',
    nodes: [
      { type: 'start', id: 'start', next: 'call' },
      { type: 'http', id: 'call', url, failOnStatus: true, next: 'end' },
      { type: 'end', id: 'end', output: '$NODE.call' },
    ],
  };
}

/**
 * A dead letter the way production gets one: a `run` task for an execution the store does not
 * hold (written into the server's embedded queue, in its SQLite file); the worker dead-letters it
 * as `unknown_execution`. Resolves with the dead letter's id once the API lists it.
 */
export async function deadLetter(server: ConsoleServer, executionId: string): Promise<string> {
  const queue = new LocalQueue({ path: server.dbPath });
  try {
    await queue.enqueue({ v: 1, kind: 'run', executionId, tenantId: 'default' });
  } finally {
    await queue.close();
  }
  return until(async () => {
    const page = await server.api<{ items: Array<{ id: string; executionId: string | null }> }>(
      'GET',
      '/v1/dead-letters',
    );
    return page.body.items.find((item) => item.executionId === executionId)?.id;
  }, `a dead letter for ${executionId}`);
}

/** Calls `probe` until it returns a value (not undefined); fails after `timeoutMs`. */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One of everything, so every page has something to show. */
export async function seedEverything(server: ConsoleServer): Promise<{
  waiting: string;
  completed: string;
  failed: string;
  scheduleId: string;
}> {
  await Promise.all([publish(server, approvalFlow), publish(server, echoFlow)]);
  const [waiting, , completed, failed, schedule] = await Promise.all([
    start(server, { flowId: 'expense_approval', input: expenseInput('EXP-1') }),
    start(server, { flowId: 'expense_approval', input: expenseInput('EXP-2') }),
    start(server, { flowId: 'echo', input: { name: 'Ada' } }),
    // Without --allow-private-networks the http node is refused 127.0.0.1: a failed execution.
    start(server, { flow: fetcherFlow('http://127.0.0.1:9/'), input: {} }),
    ok(
      server.api<{ id: string }>('POST', '/v1/schedules', {
        flowId: 'echo',
        cron: '0 9 * * 1-5',
        timezone: 'Europe/Paris',
        input: { name: 'weekday' },
      }),
      'schedule',
    ),
    deadLetter(server, 'ghost-execution'),
  ]);
  expect([waiting.status, completed.status, failed.status]).toEqual([
    'waiting',
    'completed',
    'error',
  ]);
  return {
    waiting: waiting.executionId,
    completed: completed.executionId,
    failed: failed.executionId,
    scheduleId: schedule.id,
  };
}
