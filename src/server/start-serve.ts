import type { Server } from 'node:http';
import type { Logger } from '../util/logger.js';
import { FlowWorker, type FlowWorkerOptions } from '../worker/flow-worker.js';
import { WorkerHeartbeat } from '../worker/worker-heartbeat.js';
import { type ApiApp, createApiApp } from './api-app.js';
import type { ApiAppOptions } from './api-services.js';
import { type HttpListenOptions, listenApiApp } from './http-listener.js';
import { startServerTasks } from './server-tasks.js';
import { ListenError } from '../errors/server-errors.js';

export interface ServeOptions {
  app: ApiAppOptions;
  listen: HttpListenOptions;
  /** A worker in this process (its stores and queue are the app's); absent: none. */
  worker?: Omit<FlowWorkerOptions, 'store' | 'flows' | 'queue'> | null;
  /** Reported in the in-process worker's heartbeat (GET /v1/workers). */
  version: string;
  log: Logger;
  /**
   * Told the first admin key's token as soon as it is made, before listening: a listen that
   * then fails must not lose the only key (it is never shown again).
   */
  onAdminToken?: (token: string) => void;
}

export interface RunningServe {
  readonly app: ApiApp;
  readonly server: Server;
  readonly worker: FlowWorker | null;
  /** The first admin key's token when this start made it (key auth, an empty store). */
  readonly adminToken: string | null;
  /**
   * Stops in order: background tasks (streams get their final event), no new requests and
   * those under way finished, the worker drained, its registration withdrawn. The stores and
   * queue stay open: they are the caller's.
   */
  stop(): Promise<void>;
}

/**
 * `plaita serve` as a library (issue 30 §1): the API app, its first admin key, the HTTP
 * listener, an in-process worker and the server's background tasks, started and stopped in
 * the one right order. The CLI only parses flags and calls it.
 */
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const app = createApiApp(options.app);
  const adminToken =
    (options.app.authMode ?? 'keys') === 'keys' ? await app.services.keys.bootstrap() : null;
  if (adminToken) options.onAdminToken?.(adminToken);
  const server = await listenApiApp(app, options.listen).catch((error: Error) => {
    throw new ListenError(
      `cannot listen on ${options.listen.host}:${options.listen.port}: ${error.message}`,
      { cause: error },
    );
  });
  const worker = options.worker
    ? new FlowWorker({
        ...options.worker,
        store: options.app.store,
        flows: options.app.flows,
        queue: options.app.queue,
      })
    : null;
  worker?.start();
  const heartbeat = worker
    ? new WorkerHeartbeat(options.app.control, worker, {
        version: options.version,
        log: options.log,
      }).start()
    : null;
  const tasks = startServerTasks(app.services, { log: options.log });
  return {
    app,
    server,
    worker,
    adminToken,
    async stop() {
      await tasks.stop();
      await closeServer(server);
      await worker?.stop();
      await heartbeat?.stop();
      await app.services.dryRunThreads?.close();
    },
  };
}

/** Stops accepting; in-flight requests finish (streams get their final event from the tasks' stop). */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets would hold close() open: end the idle ones.
    server.closeIdleConnections();
  });
}
