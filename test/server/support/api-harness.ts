import { serve, type ServerType } from '@hono/node-server';
import { createApiApp, type ApiApp } from '../../../src/server/api-app.js';
import type { ApiAppOptions } from '../../../src/server/api-services.js';
import { LocalQueue } from '../../../src/backends/sqlite/queue/local-queue.js';
import type { TaskQueue } from '../../../src/queue/task-queue.js';
import type { ControlStore } from '../../../src/store/control-store.js';
import type { ExecutionStore } from '../../../src/store/execution-store.js';
import type { FlowStore } from '../../../src/store/flow-store.js';
import { MemoryControlStore } from '../../../src/backends/memory/memory-control-store.js';
import { MemoryExecutionStore } from '../../../src/backends/memory/memory-execution-store.js';
import { MemoryFlowStore } from '../../../src/backends/memory/memory-flow-store.js';
import { silentLogger } from '../../../src/util/logger.js';
import { FlowWorker } from '../../../src/worker/flow-worker.js';

export interface Backends {
  store: ExecutionStore;
  flows: FlowStore;
  control: ControlStore;
  queue: TaskQueue;
  close?: () => Promise<void>;
}

export interface ApiHarness {
  app: ApiApp;
  url: string;
  /** The first admin key (platform), made through the bootstrap. */
  adminToken: string;
  backends: Backends;
  worker: FlowWorker | null;
  fetch(
    path: string,
    init?: RequestInit & { token?: string | null; json?: unknown },
  ): Promise<Response>;
  /** A key of `role` for `tenant`, made with the admin key through the API. */
  key(role: 'viewer' | 'operator' | 'admin', tenant: string): Promise<string>;
  close(): Promise<void>;
}

export function memoryBackends(): Backends {
  const queue = new LocalQueue({ path: ':memory:' }, { visibilityTimeoutMs: 2000 });
  return {
    store: new MemoryExecutionStore(),
    flows: new MemoryFlowStore(),
    control: new MemoryControlStore(),
    queue,
    close: () => queue.close(),
  };
}

/** A real server on 127.0.0.1 (random port) with an in-process worker, for black-box tests. */
export async function startApi(
  options: {
    backends?: Backends;
    worker?: boolean;
    app?: Partial<ApiAppOptions>;
  } = {},
): Promise<ApiHarness> {
  const backends = options.backends ?? memoryBackends();
  const app = createApiApp({ ...backends, logger: silentLogger, rateLimit: null, ...options.app });
  const worker =
    options.worker === false
      ? null
      : new FlowWorker({ ...backends, pollBlockMs: 20, logger: silentLogger, leaseTtlMs: 3000 });
  worker?.start();
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const address = server.address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  const adminToken = (await app.services.keys.bootstrap()) ?? '';
  const harness: ApiHarness = {
    app,
    url,
    adminToken,
    backends,
    worker,
    fetch(path, init = {}) {
      const { token = adminToken, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(`${url}${path}`, {
        ...rest,
        headers,
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      });
    },
    async key(role, tenant) {
      const res = await harness.fetch('/v1/api-keys', {
        method: 'POST',
        json: { name: `${role}@${tenant}`, role, tenant },
      });
      if (res.status !== 201)
        throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker?.stop();
      await backends.close?.();
    },
  };
  return harness;
}

/** The JSON body; a body that is not JSON fails with the status and its start, not a bare SyntaxError. */
export async function body<T = Record<string, unknown>>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 300)}`);
  }
}
