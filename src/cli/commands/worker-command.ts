import { createServer, type Server } from 'node:http';
import type { Command } from 'commander';
import { getDefaultLogger } from '../../util/logger.js';
import { DEFAULT_CODE_THREADS, limitsFromEnv } from '../operator-limits.js';
import { flowEnvFromEnv, flowEnvNote } from '../flow-env.js';
import { WorkerMetrics } from '../../worker/worker-metrics.js';
import { startWorkerProcess } from '../../control/worker-process.js';
import { packageVersion } from '../package-version.js';
import type { CommandContext } from '../command-context.js';
import { type DurableFlags, runtimeFor, withDurableOptions } from '../durable-options.js';
import { cutOffNote, exitIfWorkWasCutOff } from '../cut-off-exit.js';
import { CliError, EXIT } from '../exit-codes.js';
import {
  countSetting,
  numberSetting,
  withWorkerSettingOptions,
  workerSettingsFrom,
  type WorkerSettingFlags,
} from '../worker-settings.js';

interface WorkerFlags extends DurableFlags, WorkerSettingFlags {
  concurrency?: string;
  metricsPort?: string;
}

/** `plaita worker`: consumes the queue until SIGTERM/SIGINT, then drains and exits 0. */
export function registerWorker(program: Command, context: CommandContext): void {
  withDurableOptions(
    withWorkerSettingOptions(program.command('worker'))
      .description('run a worker until SIGTERM/SIGINT (graceful drain)')
      .option('--concurrency <n>', 'messages handled at once (PLAITA_CONCURRENCY; default 16)')
      .option(
        '--metrics-port <port>',
        'serve Prometheus metrics on /metrics (PLAITA_METRICS_PORT)',
      ),
  ).action(async (opts: WorkerFlags) => {
    // Every flag is checked before a connection opens: bad usage must not leave one open.
    const settings = {
      // Counts: 0 or 1.5 messages at once, or deliveries, mean nothing; they were taken silently.
      concurrency: countSetting(opts.concurrency, 'PLAITA_CONCURRENCY'),
      ...workerSettingsFrom(opts),
    };
    const metricsPort = numberSetting(opts.metricsPort, 'PLAITA_METRICS_PORT');
    // Served metrics need prom-client: without it this fails here, before anything opens.
    const metrics = metricsPort === undefined ? null : new WorkerMetrics();
    // The flows a worker runs may be anybody's: they never see its own settings (flow-env.ts).
    const flowEnv = flowEnvFromEnv();
    // A worker started before its store is up waits for it (and rides out outages later).
    // The queue takes messages back after its visibility timeout, and the worker renews them
    // at a third of it: both must hear the flag, or renewals come too late (double handling).
    const runtime = await runtimeFor(opts, {
      waitForServices: true,
      ...(settings.visibilityTimeoutMs === undefined
        ? {}
        : { visibilityTimeoutMs: settings.visibilityTimeoutMs }),
    });
    const log = getDefaultLogger();
    const defined = Object.fromEntries(
      Object.entries(settings).filter(([, v]) => v !== undefined),
    ) as Record<string, number>;
    // A worker runs other people's flows: private networks are closed unless the operator opens them.
    const engine = {
      limits: limitsFromEnv({ privateNetworks: 'deny', codeThreads: DEFAULT_CODE_THREADS }),
      env: flowEnv,
    };
    const server =
      metrics === null || metricsPort === undefined
        ? null
        : await serveMetrics(metrics, metricsPort).catch(async (error: unknown) => {
            await runtime.close();
            throw new CliError(
              `--metrics-port ${metricsPort}: ${(error as Error).message}`,
              EXIT.usage,
            );
          });
    const running = startWorkerProcess({
      runtime,
      worker: {
        registry: runtime.registry,
        logger: log,
        engine,
        ...(metrics ? { metrics } : {}),
        ...defined,
      },
      scheduler: process.env.PLAITA_SCHEDULER !== '0',
      version: packageVersion(),
      log,
    });
    const { worker } = running;
    log.info(
      {
        workerId: worker.workerId,
        store: runtime.target.kind,
        queue: runtime.embedded ? 'local' : 'redis',
        metricsPort,
        flowEnv: flowEnvNote(),
      },
      'worker started',
    );
    await new Promise<void>((resolve) => {
      const shutdown = (signal: string): void => {
        log.info({ signal }, 'draining');
        resolve();
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });
    await running.stop();
    server?.close();
    await runtime.close();
    log.info(
      { workerId: worker.workerId, abandoned: worker.abandonedOnStop },
      `worker stopped${cutOffNote(worker)}`,
    );
    context.exit(EXIT.ok);
    exitIfWorkWasCutOff(worker);
  });
}

function serveMetrics(metrics: WorkerMetrics, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}
