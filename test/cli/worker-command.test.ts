import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REDIS_URL, redisGate, uniqueName } from '../support/services.js';
import { Redis } from 'ioredis';
import { deletePrefix } from '../worker/support/redis-runtime.js';
import { cli, ROOT } from './run-cli.js';

const gate = await redisGate();

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

gate.describe('plaita worker / start / event with Redis', () => {
  gate.it(
    'a worker process serves /metrics, runs what `start` enqueued, and drains on SIGTERM with exit 0',
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'plaita-worker-cli-'));
      const prefix = uniqueName('cli');
      const env = {
        PLAITA_REDIS_URL: REDIS_URL,
        PLAITA_STORE: REDIS_URL,
        PLAITA_QUEUE: `${prefix}:tasks`,
        PLAITA_PREFIX: prefix,
        PLAITA_LOG_LEVEL: 'silent',
      };
      const port = await freePort();
      const worker = spawn(
        process.execPath,
        [`${ROOT}dist/cli.js`, 'worker', '--metrics-port', String(port), '--concurrency', '4'],
        { cwd, env: { ...process.env, ...env } },
      );
      const exited = new Promise<number | null>((resolve) =>
        worker.once('exit', (code) => resolve(code)),
      );
      try {
        const started = cli(
          ['start', `${ROOT}examples/echo.json`, '--input', '{"name":"Ada"}', '--json'],
          { cwd, env },
        );
        expect(started.code).toBe(0);
        const { executionId } = JSON.parse(started.stdout) as { executionId: string };
        await expect
          .poll(
            () =>
              (
                JSON.parse(cli(['status', executionId, '--json'], { cwd, env }).stdout || '{}') as {
                  status?: string;
                }
              ).status,
            { timeout: 20_000, interval: 200 },
          )
          .toBe('completed');
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        expect(metrics).toContain('plaita_messages_total');
        expect(metrics).toMatch(/plaita_executions_total\{status="completed"\} [1-9]/);
        worker.kill('SIGTERM');
        expect(await exited).toBe(0);
      } finally {
        worker.kill('SIGKILL');
        const redis = new Redis(REDIS_URL);
        await deletePrefix(redis, prefix);
        redis.disconnect();
      }
    },
    60_000,
  );
});
