/** docs/public-surface.md: 0 success, 1 the flow or execution failed, 2 bad usage or input, 3 a service is unreachable. */
export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Thrown by commands for a precise message and exit code, never a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly details?: unknown,
  ) {
    super(message);
  }
}
