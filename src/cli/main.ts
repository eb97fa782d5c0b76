import { Command, CommanderError } from 'commander';
import { PlaitaError } from '../errors.js';
import type { CommandContext } from './command-context.js';
import { registerEvent } from './commands/event-command.js';
import { registerList, registerStatus } from './commands/executions-command.js';
import {
  registerCancel,
  registerDlq,
  registerReap,
  registerRetry,
} from './commands/operator-commands.js';
import { registerReindex } from './commands/reindex-command.js';
import { checkNumericSettings } from './runtime.js';
import { registerRun } from './commands/run-command.js';
import { registerServe } from './commands/serve-command.js';
import { registerKeys } from './commands/keys-command.js';
import { registerStart } from './commands/start-command.js';
import { registerWorker } from './commands/worker-command.js';
import { registerStep } from './commands/step-command.js';
import { registerValidate } from './commands/validate-command.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { failureExit, type TypedFailure } from './failure-exit.js';
import { createOutput } from './output.js';

/** Builds the program; every command is registered from its own module. */
export function buildProgram(context: CommandContext): Command {
  const program = new Command('plaita')
    .description(
      'Run plaita flow documents: in process, or durably on SQLite, PostgreSQL or Redis.',
    )
    .option('--json', 'print one JSON document instead of text', process.env.PLAITA_JSON === '1')
    .exitOverride()
    .showHelpAfterError();
  registerRun(program, context);
  registerValidate(program, context);
  registerStep(program, context);
  registerWorker(program, context);
  registerStart(program, context);
  registerEvent(program, context);
  registerStatus(program, context);
  registerList(program, context);
  registerCancel(program, context);
  registerRetry(program, context);
  registerDlq(program, context);
  registerReap(program, context);
  registerReindex(program, context);
  registerServe(program, context);
  registerKeys(program, context);
  return program;
}

/** Runs the CLI and returns the exit code; never lets a stack trace reach the user for expected failures. */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: ExitCode = EXIT.ok;
  const json = { value: false };
  const context: CommandContext = {
    output: () => createOutput(json.value),
    exit: (code) => {
      exitCode = code;
    },
  };
  const program = buildProgram(context);
  program.hook('preAction', () => {
    json.value = Boolean(program.opts<{ json?: boolean }>().json);
    checkNumericSettings();
  });
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    // A parse error comes before any action: --json is read from the arguments themselves.
    if (error instanceof CommanderError)
      json.value = argv.includes('--json') || process.env.PLAITA_JSON === '1';
    return reportFailure(error, context);
  }
}

function reportFailure(error: unknown, context: CommandContext): number {
  if (error instanceof CommanderError) {
    // Help and version are successes; every other parse error is bad usage (commander has
    // written its message and the command's help on stderr).
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help'
    )
      return EXIT.ok;
    const out = context.output();
    if (out.json)
      out.result(
        {
          status: 'error',
          error: { code: error.code, message: error.message.replace(/^error: /, '') },
        },
        '',
      );
    return EXIT.usage;
  }
  const out = context.output();
  if (error instanceof CliError) {
    if (out.json)
      out.result(
        {
          status: 'error',
          error: { message: error.message, ...(error.details ? { details: error.details } : {}) },
        },
        '',
      );
    out.note(`error: ${error.message}`);
    return error.exitCode;
  }
  const failure = failureExit(error);
  if (failure) {
    if (out.json) out.result({ status: 'error', error: errorRecord(failure.error) }, '');
    const prefix =
      failure.exitCode === EXIT.unavailable ? 'a required service is unreachable: ' : '';
    out.note(`error: ${prefix}${failure.error.message}`);
    return failure.exitCode;
  }
  out.note(
    `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return EXIT.failed;
}

function errorRecord(error: TypedFailure): Record<string, unknown> {
  if (error instanceof PlaitaError) return { ...error.toRecord() };
  const { code, name, message, retryable } = error;
  return { code, name, message, retryable };
}
