import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  CodeError,
  CodeMemoryError,
  CodeOutputTooLargeError,
  CodeTimeoutError,
} from '../../errors/code-errors.js';
import { pythonInputJson } from './python-input-json.js';
import { PYTHON_RUNNER } from './python-runner.js';
import { abortReason, collect, killGroup } from './subprocess.js';

/**
 * The opt-in `python` backend: one `python3 -I` subprocess per call. NOT a sandbox: the code
 * runs with the worker's rights (files, network, processes). What it does bound: wall-clock
 * time (the process group is SIGKILLed, children included), CPU time and address space
 * (RLIMIT_CPU, RLIMIT_AS), the size of the result, the environment (scrubbed to PATH, a
 * locale and a HOME/TMPDIR inside a fresh working directory that is deleted afterwards).
 */
export interface PythonRun {
  source: string;
  input: unknown;
  /** Wall-clock limit; RLIMIT_CPU is set one second above it. */
  timeoutMs: number;
  /** RLIMIT_AS, bytes (0 = none). */
  memoryBytes: number;
  outputBytes: number;
  /** Aborting kills the process group and rejects with the signal's reason. */
  signal: AbortSignal;
  /** The interpreter; `python3` on PATH by default. */
  python?: string | undefined;
}

// The envelope around the result: `{"ok": true, "result": …}`.
const ENVELOPE_SLACK = 64;
const STDERR_KEEP = 4096;
/** After the interpreter exits, how long its pipes may stay open (held by a process it left). */
const PIPES_AFTER_EXIT_MS = 250;

export async function runPython(run: PythonRun): Promise<unknown> {
  run.signal.throwIfAborted();
  const inputJson = pythonInputJson(run.input);
  const dir = await mkdtemp(join(tmpdir(), 'plaita-code-'));
  try {
    return await runIn(dir, run, `{"code":${JSON.stringify(run.source)},"input":${inputJson}}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runIn(dir: string, run: PythonRun, request: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const cpuSeconds = Math.ceil(run.timeoutMs / 1000) + 1;
    const child = spawn(
      run.python ?? 'python3',
      ['-I', '-c', PYTHON_RUNNER, String(run.memoryBytes), String(cpuSeconds)],
      {
        cwd: dir,
        env: scrubbedEnv(dir),
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        // Its own process group, so a kill reaches the children the code started too.
        detached: true,
      },
    );
    let verdict: Error | undefined;
    let settled = false;
    const kill = (reason: Error): void => {
      verdict ??= reason;
      killGroup(child);
    };
    const timer = setTimeout(
      () => kill(new CodeTimeoutError(`the Python code ran over ${run.timeoutMs} ms`)),
      run.timeoutMs,
    );
    const onAbort = (): void => kill(abortReason(run.signal));
    run.signal.addEventListener('abort', onAbort, { once: true });
    // Aborted while the directory was being made: the listener came too late to hear it.
    if (run.signal.aborted) onAbort();
    const result = collect(child.stdio[3] as Readable, run.outputBytes + ENVELOPE_SLACK, () =>
      kill(
        new CodeOutputTooLargeError(
          `the Python result is over the limit of ${run.outputBytes} bytes`,
        ),
      ),
    );
    const stderr = collect(child.stderr, STDERR_KEEP);
    collect(child.stdout, 0);
    const finish = (outcome: () => unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      try {
        resolve(outcome());
      } catch (error) {
        reject(error instanceof Error ? error : new CodeError(String(error)));
      }
    };
    child.on('error', (error) => {
      // Only a failed spawn reaches here with no pid; later errors end in 'close'.
      if (child.pid !== undefined) return;
      finish(() => {
        throw new CodeError(`${run.python ?? 'python3'} could not be started: ${error.message}`, {
          retryable: false,
        });
      });
    });
    child.on('exit', () => {
      // What the code started and left in its group goes with it. One that made a session of
      // its own escapes the kill and can hold the pipes open for ever, and 'close' waits for
      // every pipe: once the runner is gone, what it wrote has arrived, so the pipes are cut.
      killGroup(child);
      const cut = setTimeout(() => {
        for (const pipe of [child.stdout, child.stderr, child.stdio[3]])
          (pipe as Readable | null)?.destroy();
      }, PIPES_AFTER_EXIT_MS);
      child.once('close', () => clearTimeout(cut));
    });
    child.on('close', (code, signal) => {
      finish(() => {
        if (verdict) throw verdict;
        return readEnvelope(result.text(), stderr.text(), code, signal);
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(request);
  });
}

function readEnvelope(
  text: string,
  stderr: string,
  code: number | null,
  signal: NodeJS.Signals | null,
): unknown {
  if (text === '') {
    if (signal === 'SIGXCPU') throw new CodeTimeoutError('the Python code used up its CPU time');
    if (/\bMemoryError\b/.test(stderr))
      throw new CodeMemoryError('the Python code ran out of memory');
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    throw new CodeError(`python ${how}${stderr ? `: ${lastLines(stderr)}` : ''}`);
  }
  const envelope = parsedEnvelope(text);
  if (envelope.ok) return envelope.result ?? null;
  const type = envelope.type ?? 'Error';
  if (type === 'MemoryError') throw new CodeMemoryError('the Python code ran out of memory');
  if (type === 'SyntaxError') {
    const line = envelope.line ?? undefined;
    const column = envelope.column ?? undefined;
    const at =
      line !== undefined
        ? ` (line ${line}${column !== undefined ? `, column ${column}` : ''})`
        : '';
    throw new CodeError(`SyntaxError: ${envelope.error ?? ''}${at}`, {
      retryable: false,
      ...(line !== undefined ? { line } : {}),
      ...(column !== undefined ? { column } : {}),
    });
  }
  throw new CodeError(`${type}: ${envelope.error ?? ''}`);
}

function scrubbedEnv(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    HOME: dir,
    TMPDIR: dir,
  };
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ');
}

interface Envelope {
  ok?: boolean;
  result?: unknown;
  type?: string;
  error?: string;
  line?: number | null;
  column?: number | null;
}

/** The runner's answer; the code can write to its pipe too, so anything else is its error. */
function parsedEnvelope(text: string): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CodeError(
      'the Python runner answered something unexpected (the code wrote to its pipe?)',
      {
        retryable: false,
      },
    );
  return parsed;
}
