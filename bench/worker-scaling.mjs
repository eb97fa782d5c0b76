// bench/worker.mjs's scaling run: `count` executions queued first, then `processes` worker
// processes (bench/worker-process.mjs) started at once on one Redis; executions/s until the last.
import { fork } from 'node:child_process';
import Redis from 'ioredis';
import { PlaitaClient } from '../dist/index.js';
import { cleanupRedisPrefix, REDIS_URL, redisParts, startAll } from './worker-harness.mjs';

const SCRIPT = new URL('./worker-process.mjs', import.meta.url);

export async function runProcesses(processes, { flow, registry, count, concurrency }) {
  const prefix = `bench-ws-${process.pid}-${processes}`;
  const parts = redisParts(prefix);
  const redis = new Redis(REDIS_URL);
  const children = [];
  try {
    await startAll(new PlaitaClient({ ...parts, registry }), flow, count);
    for (let i = 0; i < processes; i++) {
      const child = fork(SCRIPT, [], {
        env: { ...process.env, PREFIX: prefix, REDIS_URL, CONCURRENCY: String(concurrency) },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      await new Promise((resolve) => child.once('message', resolve));
    }
    const t0 = performance.now();
    for (const child of children) child.send('go');
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (Number(await redis.get(`${prefix}:done`)) >= count)
        return Math.round(count / ((performance.now() - t0) / 1000));
      if (performance.now() - t0 > 600_000) return null;
    }
  } finally {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
    redis.disconnect();
    await parts.close();
    await cleanupRedisPrefix(prefix);
  }
}
