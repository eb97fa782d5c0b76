import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../fixtures/worker-process.mjs', import.meta.url));
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface WorkerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  signal(signal: NodeJS.Signals): void;
}

/** Starts `test/worker/fixtures/worker-process.mjs` (it runs the BUILT code in dist/) and waits until it consumes. */
export async function startWorkerProcess(
  name: string,
  env: Record<string, string | number>,
): Promise<WorkerProcess> {
  const child = fork(SCRIPT, [], {
    env: {
      ...process.env,
      PLAITA_LOG_LEVEL: 'silent',
      WORKER_NAME: name,
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code, signal) =>
      reject(
        new Error(
          `worker ${name} exited before it was ready (code ${String(code)}, signal ${String(signal)})`,
        ),
      ),
    );
  });
  return { name, child, pid: child.pid!, exited, signal: (s) => void child.kill(s) };
}

export async function stopAll(workers: Iterable<WorkerProcess>): Promise<void> {
  await Promise.all(
    [...workers].map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      w.signal('SIGKILL');
      await w.exited;
    }),
  );
}
