import { readFileSync } from 'node:fs';
import { DEFAULT_LIMITS } from '../flow/runtime-limits.js';
import { parseJsonWithDepth } from '../util/value-depth.js';
import { EXIT, CliError } from './exit-codes.js';

/** `--input JSON` or `--input @file`: a JSON object, else exit 2 with the reason. */
export function readInput(raw: string | undefined, option = '--input'): Record<string, unknown> {
  if (raw === undefined || raw === '') return {};
  const value = parseOption(optionText(raw, option), option);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      `${option} must be a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`,
      EXIT.usage,
    );
  }
  return value as Record<string, unknown>;
}

/** `--data JSON` or `--data @file` for events: any JSON value. */
export function readJsonValue(raw: string | undefined, option: string): unknown {
  if (raw === undefined) return null;
  return parseOption(optionText(raw, option), option);
}

/** The option's text: itself, or the contents of the file named after `@`. */
function optionText(raw: string, option: string): string {
  if (!raw.startsWith('@')) return raw;
  const file = raw.slice(1);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`${option}: cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}

/**
 * JSON nested deeper than the runtime's `maxDepth` is refused before `JSON.parse` could
 * overflow the stack: InputRejectedError (`input_too_deep`, exit 2) naming the option.
 */
function parseOption(text: string, option: string): unknown {
  try {
    return parseJsonWithDepth(text, DEFAULT_LIMITS.maxDepth, option);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new CliError(`${option} is not valid JSON: ${error.message}`, EXIT.usage);
  }
}
