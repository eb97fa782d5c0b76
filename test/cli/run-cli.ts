import { spawnSync } from 'node:child_process';
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
