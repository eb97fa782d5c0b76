import type { Command } from 'commander';
import type { ApiAppOptions } from '../../server/api-services.js';
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from '../../server/http-listener.js';
import { clientAddressResolver, TRUSTED_PROXY_PRESETS } from '../../server/client-address.js';
import { type RunningServe, startServe } from '../../server/start-serve.js';
import { ListenError } from '../../errors/server-errors.js';
import { getDefaultLogger } from '../../util/logger.js';
import { WorkerMetrics } from '../../worker/worker-metrics.js';
import { packageVersion } from '../package-version.js';
import type { CommandContext } from '../command-context.js';
import { type DurableFlags, runtimeFor, withDurableOptions } from '../durable-options.js';
import { cutOffNote, exitIfWorkWasCutOff } from '../cut-off-exit.js';
import {
  withWorkerSettingOptions,
  workerSettingsFrom,
  type WorkerSettingFlags,
} from '../worker-settings.js';
import { CliError, EXIT } from '../exit-codes.js';
import { DEFAULT_CODE_THREADS, limitsFromEnv } from '../operator-limits.js';
import { flowEnvFromEnv, flowEnvNote } from '../flow-env.js';
import { consoleDirectory } from '../console-dir.js';
import { pluginModuleList } from '../flow-args.js';

interface ServeFlags extends DurableFlags, WorkerSettingFlags {
  host: string;
  port: string;
  maxBody: string;
  rateLimit: string;
  maxInFlight: string;
  corsOrigin?: string;
  publicUrl?: string;
  auth: boolean;
  allowPrivateNetworks?: boolean;
  withWorker?: string;
  metricsPublic?: boolean;
  trustProxy?: string;
  keepAliveTimeout: string;
  headersTimeout?: string;
}

const env = process.env;

/** `plaita serve` (docs/http-api.md §1): the HTTP API and the console, embedded by default. */
export function registerServe(program: Command, context: CommandContext): void {
  withDurableOptions(
    withWorkerSettingOptions(program.command('serve'))
      .description(
        'serve the HTTP API and the web console (embedded: SQLite + an in-process worker)',
      )
      .option('--host <host>', 'address to listen on (PLAITA_HOST)', env.PLAITA_HOST ?? '127.0.0.1')
      .option('--port <port>', 'port (PLAITA_PORT)', env.PLAITA_PORT ?? '8080')
      .option(
        '--max-body <bytes>',
        'largest request body (PLAITA_MAX_BODY)',
        env.PLAITA_MAX_BODY ?? '1048576',
      )
      .option(
        '--rate-limit <n/s>',
        'requests per second per key, burst 2x (PLAITA_RATE_LIMIT; 0 = off)',
        env.PLAITA_RATE_LIMIT ?? '50',
      )
      .option(
        '--max-in-flight <n>',
        'requests one key may have in flight at once (PLAITA_MAX_IN_FLIGHT; 0 = off)',
        env.PLAITA_MAX_IN_FLIGHT ?? '32',
      )
      .option(
        '--cors-origin <origin>',
        'an origin allowed to call the API from a browser (PLAITA_CORS_ORIGIN)',
        env.PLAITA_CORS_ORIGIN,
      )
      .option(
        '--public-url <url>',
        'the URL links are made with (PLAITA_PUBLIC_URL)',
        env.PLAITA_PUBLIC_URL,
      )
      .option(
        '--no-auth',
        'no API keys: every caller is an admin (refused off loopback; PLAITA_NO_AUTH=1)',
      )
      .option(
        '--allow-private-networks',
        'let flows the server runs reach private addresses (PLAITA_ALLOW_PRIVATE_NETWORKS=1)',
        env.PLAITA_ALLOW_PRIVATE_NETWORKS === '1',
      )
      .option(
        '--with-worker <n>',
        'with a Redis queue: run a worker of this concurrency in process (PLAITA_WITH_WORKER)',
        env.PLAITA_WITH_WORKER,
      )
      .option(
        '--trust-proxy <addresses>',
        `proxies whose X-Forwarded-For is believed: addresses, CIDR ranges, ${TRUSTED_PROXY_PRESETS.join(', ')} (comma-separated; PLAITA_TRUST_PROXY)`,
        env.PLAITA_TRUST_PROXY,
      )
      .option(
        '--keep-alive-timeout <ms>',
        "how long an idle connection stays open; keep it above your load balancer's idle timeout (PLAITA_KEEP_ALIVE_TIMEOUT_MS)",
        env.PLAITA_KEEP_ALIVE_TIMEOUT_MS ?? String(DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
      )
      .option(
        '--headers-timeout <ms>',
        "how long a request's headers may take, above the keep-alive timeout (PLAITA_HEADERS_TIMEOUT_MS; default it + 1000)",
        env.PLAITA_HEADERS_TIMEOUT_MS,
      )
      .option(
        '--metrics-public',
        'serve /metrics without a key (PLAITA_METRICS_PUBLIC=1)',
        env.PLAITA_METRICS_PUBLIC === '1',
      ),
  ).action(async (opts: ServeFlags) => {
    if (process.env.PLAITA_NO_AUTH === '1') opts.auth = false;
    const port = positive(opts.port, '--port');
    const maxBodyBytes = positive(opts.maxBody, '--max-body');
    const perSecond = nonNegative(opts.rateLimit, '--rate-limit');
    const maxInFlight = nonNegative(opts.maxInFlight, '--max-in-flight');
    const clientAddress = clientAddressFor(opts.trustProxy);
    const timeouts = connectionTimeouts(opts);
    const withWorker =
      opts.withWorker === undefined ? undefined : positive(opts.withWorker, '--with-worker');
    // The in-process worker takes the worker's own settings, as `plaita worker` does.
    const workerSettings = workerSettingsFrom(opts);
    if (!opts.auth && !isLoopback(opts.host))
      throw new CliError(
        `--no-auth is refused on ${opts.host}: only on a loopback address (127.0.0.1, ::1)`,
        EXIT.usage,
      );
    const log = getDefaultLogger();
    // Flows run here are the users': they never see the server's own settings (flow-env.ts).
    const flowEnv = flowEnvFromEnv();
    // The queue takes messages back after its visibility timeout, and the worker renews them
    // at a third of it: both hear the setting.
    const runtime = await runtimeFor(
      opts,
      workerSettings.visibilityTimeoutMs === undefined
        ? {}
        : { visibilityTimeoutMs: workerSettings.visibilityTimeoutMs },
    );
    // Flows the server runs belong to its users: private networks closed, data never code.
    const limits = limitsFromEnv({
      privateNetworks: opts.allowPrivateNetworks ? 'allow' : 'deny',
      nestedDataExpressions: false,
      // Code runs on threads, so a runaway node never holds the HTTP event loop.
      codeThreads: DEFAULT_CODE_THREADS,
    });
    const workerConcurrency = runtime.embedded ? (withWorker ?? 8) : withWorker;
    // prom-client is an optional peer: without it the server serves no /metrics (404).
    const metrics = WorkerMetrics.ifAvailable();
    metrics?.observeQueue(runtime.queue);
    const appOptions: ApiAppOptions = {
      store: runtime.store,
      flows: runtime.flows,
      control: runtime.control,
      queue: runtime.queue,
      registry: runtime.registry,
      authMode: opts.auth ? 'keys' : 'none',
      maxBodyBytes,
      rateLimit: perSecond === 0 ? null : { perSecond, burst: perSecond * 2 },
      maxInFlight: maxInFlight === 0 ? null : maxInFlight,
      corsOrigin: opts.corsOrigin ?? null,
      publicUrl: opts.publicUrl ?? null,
      limits,
      // Dry-runs compute off the HTTP loop, on as many threads as code nodes, with our plugins.
      dryRunThreads: {
        threads: limits.codeThreads ?? DEFAULT_CODE_THREADS,
        nodeModules: pluginModuleList(opts.nodes),
      },
      metricsPublic: opts.metricsPublic === true,
      ...(metrics ? { metrics: () => metrics.registry.metrics() } : {}),
      logger: log,
      clientAddress,
      consoleDir: consoleDirectory(),
    };
    const url =
      opts.publicUrl ?? `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
    let serve: RunningServe;
    try {
      serve = await startServe({
        app: appOptions,
        listen: { host: opts.host, port, ...timeouts },
        worker:
          workerConcurrency === undefined
            ? null
            : {
                registry: runtime.registry,
                logger: log,
                concurrency: workerConcurrency,
                ...workerSettings,
                metrics,
                engine: { limits, env: flowEnv },
              },
        version: packageVersion(),
        log,
        onAdminToken: (token) =>
          process.stderr.write(
            `\nplaita: the first admin API key (shown once, keep it):\n\n  ${token}\n\n` +
              `  console: ${url}/   API reference: ${url}/docs\n\n`,
          ),
      });
    } catch (error) {
      // A store down at start (exit 3) or a port taken (exit 2): nothing may keep the process
      // alive after the message, as a reconnecting client would.
      await runtime.close();
      if (error instanceof ListenError) throw new CliError(error.message, EXIT.usage);
      throw error;
    }
    const { worker } = serve;
    if (!opts.auth)
      process.stderr.write(
        `plaita: WARNING: --no-auth: every caller on ${opts.host} is an admin\n`,
      );
    log.info(
      {
        url,
        store: runtime.target.kind,
        queue: runtime.embedded ? 'local' : 'redis',
        worker: workerConcurrency ?? 0,
      },
      'serving',
    );
    process.stderr.write(`plaita: serving ${url}\nplaita: ${flowEnvNote()}\n`);
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    log.info({ signal }, 'shutting down: no new requests, draining');
    // Said on the terminal too: a drain may take the worker's whole drain time, in silence.
    const running = worker?.inFlightCount ?? 0;
    const executions =
      worker && running > 0
        ? ` and ${running} execution${running === 1 ? '' : 's'} (up to ${Math.round(worker.drainTimeoutMs / 1000)} s)`
        : '';
    process.stderr.write(
      `plaita: stopping (${signal}): no new requests; finishing those under way${executions}` +
        (signal === 'SIGINT' ? '; Ctrl-C again stops at once' : '') +
        '\n',
    );
    await serve.stop();
    await runtime.close();
    process.stderr.write(`plaita: stopped${cutOffNote(worker)}\n`);
    context.exit(EXIT.ok);
    exitIfWorkWasCutOff(worker);
  });
}

/** `--keep-alive-timeout` and `--headers-timeout`: the second must stay above the first. */
function connectionTimeouts(opts: ServeFlags): {
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
} {
  const keepAliveTimeoutMs = positive(opts.keepAliveTimeout, '--keep-alive-timeout');
  const headersTimeoutMs =
    opts.headersTimeout === undefined
      ? keepAliveTimeoutMs + 1_000
      : positive(opts.headersTimeout, '--headers-timeout');
  if (headersTimeoutMs <= keepAliveTimeoutMs)
    throw new CliError(
      `--headers-timeout ${headersTimeoutMs} must be above --keep-alive-timeout ${keepAliveTimeoutMs}: ` +
        'a request arriving as an idle connection times out would be cut off',
      EXIT.usage,
    );
  return { keepAliveTimeoutMs, headersTimeoutMs };
}

function isLoopback(host: string): boolean {
  return (
    host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)
  );
}

function positive(raw: string, flag: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new CliError(`${flag} ${raw}: expected a positive integer`, EXIT.usage);
  return value;
}

function nonNegative(raw: string, flag: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new CliError(`${flag} ${raw}: expected a number ≥ 0`, EXIT.usage);
  return value;
}

/** `--trust-proxy a,b,…` (client-address.ts); a malformed entry is a usage error naming it. */
function clientAddressFor(list: string | undefined) {
  const entries = (list ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  try {
    return clientAddressResolver(entries);
  } catch (error) {
    throw new CliError(
      `--trust-proxy: ${(error as Error).message} (expected IP addresses, CIDR ranges or ${TRUSTED_PROXY_PRESETS.join(', ')}, comma-separated)`,
      EXIT.usage,
    );
  }
}
