import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { collect, killGroup } from '../code/subprocess.js';

export interface CommandRun {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  stdin: string | null;
  timeoutMs: number;
  /** Kept of each of stdout and stderr (bytes); the rest is read and dropped. */
  maxOutputBytes: number;
  signal: AbortSignal;
}

export interface CommandResult {
  /** 124 after a timeout, as the original (and `timeout(1)`). */
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** A stream was longer than `maxOutputBytes` and was cut there. */
  truncated: boolean;
}

export const TIMEOUT_EXIT_CODE = 124;

/**
 * Runs argv (never through a shell) in its own process group, so a timeout or an abort kills
 * the command's children too. Output beyond the cap is drained, not kept, so a chatty command
 * cannot grow the worker. Rejects only when the command cannot start, or with the signal's
 * reason when aborted (the group killed first).
 */
export function runCommand(run: CommandRun): Promise<CommandResult> {
  run.signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const child = spawn(run.argv[0]!, run.argv.slice(1), {
      cwd: run.cwd,
      env: run.env,
      stdio: [run.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let timedOut = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, run.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup(child);
    };
    run.signal.addEventListener('abort', onAbort, { once: true });
    const stdout = collect(child.stdout!, run.maxOutputBytes);
    const stderr = collect(child.stderr!, run.maxOutputBytes);
    const done = (): void => {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      done();
      reject(error);
    });
    child.once('close', (code, signal) => {
      done();
      if (aborted) return reject(run.signal.reason as Error);
      resolve({
        exitCode: timedOut
          ? TIMEOUT_EXIT_CODE
          : (code ?? 128 + (signal ? constants.signals[signal] : 0)),
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
      });
    });
    if (run.stdin !== null) {
      child.stdin?.on('error', () => undefined); // a command that exits without reading stdin
      child.stdin?.end(run.stdin);
    }
  });
}
