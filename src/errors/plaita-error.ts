/**
 * The base of the runtime errors: what the durable layers (codec, stores, queue, worker, client)
 * raise. Every class carries a stable snake_case `code` and a `retryable` flag; callers classify
 * by those two fields (see `worker/decide.ts`), never by message text or `instanceof` a
 * platform error class. Flow-level failures (a node failing, an `end` error) are `FlowError`s
 * instead: see `flow-errors.ts`. Each family of errors has its own file in this folder.
 */

export interface PlaitaErrorOptions {
  cause?: unknown;
  executionId?: string | undefined;
  nodeId?: string | undefined;
}

export abstract class PlaitaError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  readonly executionId: string | undefined;
  readonly nodeId: string | undefined;

  constructor(message: string, options: PlaitaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.executionId = options.executionId;
    this.nodeId = options.nodeId;
  }

  /** The plain record persisted in an execution's `error` field. */
  toRecord(): ErrorRecord {
    return {
      code: this.code,
      name: this.name,
      message: this.message,
      retryable: this.retryable,
      ...(this.nodeId === undefined ? {} : { node: this.nodeId }),
    };
  }
}

/** How an error is persisted: switch on `code` after loading, never on a class. */
export interface ErrorRecord {
  code: string | number | null;
  name: string;
  message: string;
  retryable: boolean;
  node?: string | null;
  details?: Record<string, unknown>;
}

/** Reads the classification fields of any thrown value without trusting its class. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The plain record persisted for any thrown value: a PlaitaError's own record (with its
 * details); anything else summarised by its name, message and whatever code it carries.
 */
export function toErrorRecord(error: unknown): ErrorRecord {
  if (error instanceof PlaitaError) return error.toRecord();
  if (error instanceof Error) {
    const { code, retryable } = error as { code?: unknown; retryable?: unknown };
    return {
      code: typeof code === 'string' || typeof code === 'number' ? code : 'internal_error',
      name: error.name,
      message: error.message,
      retryable: retryable === true,
    };
  }
  return { code: 'internal_error', name: typeof error, message: String(error), retryable: false };
}
