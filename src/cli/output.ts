/** One place decides how results reach the terminal: human text by default, one JSON document with --json. */
export interface Output {
  readonly json: boolean;
  /** The command's result: printed as text, or as the JSON document. */
  result(document: Record<string, unknown>, human: string): void;
  /** Diagnostics for humans (stderr); never part of the JSON document. */
  note(message: string): void;
}

export function createOutput(
  json: boolean,
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): Output {
  return {
    json,
    result(document, human) {
      if (json) stdout.write(JSON.stringify(document, jsonReplacer) + '\n');
      else if (human !== '') stdout.write(human + '\n');
    },
    note(message) {
      stderr.write(message + '\n');
    },
  };
}

/** Values JSON cannot show (BigInt, Map, Set) are printed readably rather than crashing the CLI. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

/** A result as a human reads it: strings raw, everything else as indented JSON. */
export function humanValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, jsonReplacer, 2) ?? 'undefined';
}
