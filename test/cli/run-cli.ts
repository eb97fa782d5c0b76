import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs the built CLI (`dist/cli.js`) as a user would and captures everything. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): CliRun {
  const out = spawnSync(process.execPath, [`${ROOT}dist/cli.js`, ...args], {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, PLAITA_LOG_LEVEL: 'silent', ...options.env },
    timeout: 60_000,
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** `cli` without blocking the test's event loop, so a batch of invocations can run side by side. */
export function cliAsync(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${ROOT}dist/cli.js`, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, PLAITA_LOG_LEVEL: 'silent', ...options.env },
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
