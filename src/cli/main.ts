import { Command, CommanderError } from 'commander';
import { PlaitaError } from '../errors/plaita-error.js';
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
import { registerRerun } from './commands/rerun-command.js';
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
    .showHelpAfterError()
    // Every command takes --json (before or after its name): its help says so too.
    .configureHelp({ showGlobalOptions: true });
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
  registerRerun(program, context);
  registerDlq(program, context);
  registerReap(program, context);
  registerReindex(program, context);
  registerServe(program, context);
  registerKeys(program, context);
  readEnvironment(program);
  return program;
}

/**
 * docs/public-surface.md: every option also reads a `PLAITA_*` variable. Options that name
 * theirs (in their help) read it themselves; every other option that takes a value reads
 * `PLAITA_<LONG_FLAG>` (`--dedup-key` → `PLAITA_DEDUP_KEY`), shown in its help, the command
 * line winning. Switches name theirs (`=1`): commander would take any value, "0" included.
 */
function readEnvironment(command: Command): void {
  for (const option of command.options) {
    if (option.envVar || option.isBoolean() || /PLAITA_/.test(option.description)) continue;
    if (option.long === undefined) continue;
    option.env(`PLAITA_${option.long.slice(2).toUpperCase().replaceAll('-', '_')}`);
    // Commander hears an option's variable only if it was named before the option was added.
    command.on(`optionEnv:${option.name()}`, (value: string) =>
      command.setOptionValueWithSource(
        option.attributeName(),
        option.parseArg ? option.parseArg(value, undefined) : value,
        'env',
      ),
    );
  }
  for (const sub of command.commands) readEnvironment(sub);
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
