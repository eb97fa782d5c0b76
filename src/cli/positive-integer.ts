import { CliError, EXIT } from './exit-codes.js';

/** A flag that must be a positive integer (`--limit 20`), else exit 2 naming it. */
export function positiveInteger(raw: string, flag: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new CliError(`${flag} must be a positive integer, got "${raw}"`, EXIT.usage);
  return value;
}
