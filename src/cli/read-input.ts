import { readFileSync } from 'node:fs';
import { EXIT, CliError } from './exit-codes.js';

/** `--input JSON` or `--input @file`: a JSON object, else exit 2 with the reason. */
export function readInput(raw: string | undefined, option = '--input'): Record<string, unknown> {
  if (raw === undefined || raw === '') return {};
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8');
    } catch (error) {
      throw new CliError(
        `${option}: cannot read ${raw.slice(1)}: ${(error as Error).message}`,
        EXIT.usage,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${option} is not valid JSON: ${(error as Error).message}`, EXIT.usage);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(
      `${option} must be a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`,
      EXIT.usage,
    );
  }
  return value as Record<string, unknown>;
}

/** `--data JSON` for events: any JSON value. */
export function readJsonValue(raw: string | undefined, option: string): unknown {
  if (raw === undefined) return null;
  const text = raw.startsWith('@') ? readFileSync(raw.slice(1), 'utf8') : raw;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${option} is not valid JSON: ${(error as Error).message}`, EXIT.usage);
  }
}
