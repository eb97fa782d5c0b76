import { z } from 'zod';
import { TerminalError } from '../../errors/node-errors.js';
import type { FlowLoader } from '../../flow/flow-loader.js';
import type { NodeContext } from '../../flow/node-type.js';
import { builtinNode } from '../builtin-node.js';
import { isDryRun } from './dry-run-flag.js';
import { runCommand } from './spawn-command.js';
import { splitCommand } from './split-command.js';

/**
 * `capture` (the original's plaita-nodes): runs a local command and captures its output. A
 * failing command is not a failing node — `{ok, exit_code, stdout, stderr, dry_run}` lets the
 * flow branch on it — unless `strict` is set. Off unless the operator enables subprocesses
 * (`codeBackends` includes `python`: the same switch as Python code nodes, since both run
 * with the worker's rights). docs/plugin-nodes.md "capture".
 */
interface CaptureFields {
  command: unknown;
  cwd: unknown;
  commandTimeoutMs: number;
  env: unknown;
  stdin: unknown;
  dryRun: boolean;
  strict: boolean;
}

/** What a command sees of the worker's environment: enough to find programs, nothing secret. */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

export const captureNode = builtinNode({
  type: 'capture',
  schema: z.looseObject({
    command: z.union([z.string(), z.array(z.unknown())]),
    cwd: z.string().nullable().optional(),
    timeout_secs: z.number().positive().optional(),
    env: z.unknown().optional(),
    stdin: z.unknown().optional(),
    dry_run: z.boolean().optional(),
    strict: z.boolean().optional(),
  }),
  load(raw, loader): CaptureFields {
    requireSubprocesses(loader);
    return {
      command: raw.command,
      cwd: raw.cwd ?? null,
      commandTimeoutMs: (raw.timeout_secs ?? 120) * 1000,
      env: raw.env ?? null,
      stdin: raw.stdin ?? null,
      dryRun: raw.dry_run ?? false,
      strict: raw.strict ?? false,
    };
  },
  async run(ctx) {
    const d = ctx.def;
    const argv = await commandArgv(ctx);
    if (isDryRun(ctx))
      return {
        ok: true,
        exit_code: 0,
        stdout: `[dry-run] would exec: ${argv.join(' ')}`,
        stderr: '',
        dry_run: true,
      };
    const { limits } = ctx.options;
    const result = await runCommand({
      argv,
      cwd: d.cwd === null ? process.cwd() : String(await ctx.evaluate(d.cwd)),
      env: await commandEnv(ctx),
      stdin: d.stdin === null ? null : String(await ctx.evaluate(d.stdin)),
      timeoutMs: Math.min(d.commandTimeoutMs, limits.subprocessTimeoutMs),
      maxOutputBytes: limits.codeOutputBytes,
      signal: ctx.signal,
    }).catch((error: unknown) => {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw new TerminalError(
        `capture could not start ${JSON.stringify(argv[0])}: ${String(error)}`,
        {
          code: 'capture_not_started',
        },
      );
    });
    const output = {
      ok: result.exitCode === 0,
      exit_code: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      dry_run: false,
      ...(result.truncated ? { truncated: true } : {}),
    };
    if (d.strict && !output.ok)
      throw new TerminalError(
        result.timedOut
          ? `${argv[0]} ran over ${Math.min(d.commandTimeoutMs, limits.subprocessTimeoutMs)} ms and was killed`
          : `${argv[0]} exited with ${result.exitCode}: ${lastLine(result.stderr)}`,
        { code: result.timedOut ? 'capture_timeout' : 'capture_failed' },
      );
    return output;
  },
});

function requireSubprocesses(loader: FlowLoader): void {
  if (loader.limits.codeBackends.includes('python')) return;
  loader.issue(
    '',
    'capture runs a local command with the worker’s rights, and subprocesses are off: enable them with PLAITA_CODE_BACKENDS=quickjs,python (codeBackends)',
    'code_backend_disabled',
  );
}

/** argv from a list (each element an expression or text) or one expression/command line. */
async function commandArgv(ctx: NodeContext<CaptureFields>): Promise<string[]> {
  const { command } = ctx.def;
  let argv: string[];
  if (Array.isArray(command)) {
    argv = [];
    for (const part of command) argv.push(String(await ctx.evaluate(part)));
  } else {
    const value = await ctx.evaluate(command);
    if (Array.isArray(value)) argv = value.map(String);
    else {
      try {
        argv = splitCommand(String(value));
      } catch (error) {
        throw new TerminalError(`capture command ${JSON.stringify(value)}: ${String(error)}`, {
          code: 'capture_bad_command',
        });
      }
    }
  }
  if (argv.length === 0 || argv[0] === '')
    throw new TerminalError('capture has an empty command', { code: 'capture_bad_command' });
  return argv;
}

async function commandEnv(ctx: NodeContext<CaptureFields>): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  if (ctx.def.env !== null) {
    const extra = await ctx.evaluate(ctx.def.env);
    if (typeof extra === 'object' && extra !== null)
      for (const [name, value] of Object.entries(extra)) env[name] = String(value);
  }
  return env;
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
}
