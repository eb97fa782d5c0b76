import { pino } from 'pino';

/** The structured logger every layer takes; pino satisfies it. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  child(bindings: Record<string, unknown>): Logger;
  /** pino has it: lets hot paths skip building a log record nobody will see. */
  isLevelEnabled?(level: string): boolean;
}

let defaultLogger: Logger | undefined;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Lazily created: pino to stderr, level from PLAITA_LOG_LEVEL (default `warn`). */
export function getDefaultLogger(): Logger {
  defaultLogger ??= pino(
    { name: 'plaita', level: levelFromEnv() },
    pino.destination({ fd: 2, sync: true }),
  );
  return defaultLogger;
}

/** A level pino does not know would make it throw, from every command, `--help` included. */
function levelFromEnv(): string {
  const raw = process.env.PLAITA_LOG_LEVEL?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 'warn';
  if (LEVELS.includes(raw)) return raw;
  process.stderr.write(
    `plaita: PLAITA_LOG_LEVEL=${JSON.stringify(process.env.PLAITA_LOG_LEVEL)} is not one of ${LEVELS.join(', ')}; logging at warn\n`,
  );
  return 'warn';
}

export const silentLogger: Logger = {
  isLevelEnabled: () => false,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
