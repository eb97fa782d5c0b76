import type { ExitCode } from './exit-codes.js';
import type { Output } from './output.js';

/** What every command gets from main: the output mode and a way to set the exit code. */
export interface CommandContext {
  output(): Output;
  exit(code: ExitCode): void;
}
