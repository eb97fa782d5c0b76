import type { Context } from 'hono';
import { PlaitaClient } from '../client/plaita-client.js';
import type { RuntimeLimits } from '../flow/runtime-limits.js';
import { DryRunThreads } from './flows/dry-run-threads.js';
import { defaultRegistry } from '../nodes/default-registry.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import type { TaskQueue } from '../queue/task-queue.js';
import type { ControlStore } from '../store/control-store.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { FlowStore } from '../store/flow-store.js';
import { getDefaultLogger, type Logger } from '../util/logger.js';
import { FlowResolver } from '../worker/flow-resolver.js';
import { AuditLog } from './audit-log.js';
import { ApiKeys } from './auth/api-keys.js';
import { ServerSecret } from './auth/server-secret.js';
import { Sessions } from './auth/sessions.js';
import { executionStreamHub } from './stream/execution-stream-hub.js';
import type { StreamHub } from './stream/stream-hub.js';
import type { RateLimitOptions } from './rate-limit.js';
import type { ServerEnv } from './server-env.js';

/** What `createApiApp` needs: the backends, and how the server behaves. */
export interface ApiAppOptions {
  store: ExecutionStore;
  flows: FlowStore;
  control: ControlStore;
  queue: TaskQueue;
  registry?: NodeRegistry;
  /** `none`: every caller is a platform admin (`--no-auth`, loopback only). Default `keys`. */
  authMode?: 'keys' | 'none';
  /** Largest request body (bytes, default 1 MiB). */
  maxBodyBytes?: number;
  /** Per key; null turns it off. Default 50/s, burst 100. */
  rateLimit?: RateLimitOptions | null;
  /** Requests one key may have in flight at once (default 32); null turns it off. */
  maxInFlight?: number | null;
  /** Failed credentials allowed per client address (default 50, then 5/s); off with `rateLimit: null`. */
  failedCredentialLimit?: RateLimitOptions;
  /** An origin allowed to call the API from a browser (CORS); default none. */
  corsOrigin?: string | null;
  /** The URL links are made with (approval links); default the request's own origin. */
  publicUrl?: string | null;
  /** Limits of flows the server runs itself (dry-runs): private networks denied by default. */
  limits?: Partial<RuntimeLimits>;
  /**
   * Dry-runs on worker threads, off the server's event loop (`plaita serve` sets it, with its
   * plugin modules); absent: they run in process, on the loop.
   */
  dryRunThreads?: { threads: number; nodeModules: readonly string[] };
  /** `/metrics` without a key. */
  metricsPublic?: boolean;
  /** Text of `/metrics` (Prometheus exposition); default none (404). */
  metrics?: () => Promise<string>;
  /** Is the queue reachable (`/readyz`)? Default: `queue.stats()` answers. */
  logger?: Logger;
  /** The client's address for the audit log (the node adapter's socket address). */
  clientAddress?: (c: Context<ServerEnv>) => string | null;
  /** The console's static files (dist/console), served at `/`; absent: no console. */
  consoleDir?: string | null;
}

/** The server's shared services, built once per app and handed to every route group. */
export interface ApiServices {
  options: ApiAppOptions;
  store: ExecutionStore;
  flows: FlowStore;
  control: ControlStore;
  queue: TaskQueue;
  registry: NodeRegistry;
  client: PlaitaClient;
  resolver: FlowResolver;
  keys: ApiKeys;
  secret: ServerSecret;
  sessions: Sessions;
  audit: AuditLog;
  log: Logger;
  limits: Partial<RuntimeLimits>;
  /** Where dry-runs run when not on the loop (ApiAppOptions.dryRunThreads). */
  dryRunThreads: DryRunThreads | null;
  /** The app's open execution streams: the stream route opens them, shutdown closes them. */
  streams: StreamHub;
}

export function createServices(options: ApiAppOptions): ApiServices {
  const registry = options.registry ?? defaultRegistry;
  const keys = new ApiKeys(options.control);
  const secret = new ServerSecret(options.control);
  // Code nodes in a dry-run are remote code execution by whoever may dry-run: off unless the
  // operator enabled a backend for the server itself (docs/code-node.md).
  const limits: Partial<RuntimeLimits> = {
    privateNetworks: 'deny',
    nestedDataExpressions: false,
    codeBackends: [],
    ...options.limits,
  };
  const threads = options.dryRunThreads;
  const services = {
    options,
    store: options.store,
    flows: options.flows,
    control: options.control,
    queue: options.queue,
    registry,
    client: new PlaitaClient({
      store: options.store,
      flows: options.flows,
      queue: options.queue,
      registry,
    }),
    resolver: new FlowResolver(options.flows, registry),
    keys,
    secret,
    sessions: new Sessions(keys, secret, options.control),
    audit: new AuditLog(options.control, options.clientAddress ?? (() => null)),
    log: options.logger ?? getDefaultLogger(),
    limits,
    dryRunThreads:
      threads && threads.threads > 0
        ? new DryRunThreads({ threads: threads.threads, nodeModules: threads.nodeModules, limits })
        : null,
  };
  // The hub reads through these very services (not a copy of them).
  return Object.assign(services, { streams: executionStreamHub(services) });
}
