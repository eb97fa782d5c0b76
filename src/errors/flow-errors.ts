/**
 * Flow-level failures: what a flow itself produces (docs/flow-format.md §7). They keep the original
 * engine's numeric codes for compatibility; `type` is the stable string other layers
 * switch on. A FlowError is never retryable: retries belong to the node's errorHandler.
 */

export type FlowErrorType =
  | 'node_error'
  | 'flow_error'
  | 'error_result'
  | 'node_not_found'
  /** A node's expression ran out of its evaluation budget (work, memory or time). */
  | 'expression_budget'
  /** The execution reached its maximum number of node visits. */
  | 'step_limit'
  /** A child execution would nest deeper than the operator allows (maxChildDepth). */
  | 'nesting_limit'
  /** A code node's code threw (or did not compile, or returned what cannot be stored). */
  | 'code_error'
  /** A code node's run used up its CPU time (JavaScript) or wall-clock time (Python). */
  | 'code_timeout'
  /** A code node's run went over its memory limit. */
  | 'code_memory'
  /** A code node's result (or a captured output) is larger than the operator allows. */
  | 'code_output_too_large'
  /** A node needs a code backend the operator has not enabled (`codeBackends`). */
  | 'code_backend_disabled';

/**
 * Node failures whose cause carries one of these string codes keep it as their `type`, so
 * an operator can tell a runaway code node from an ordinary failure without reading text.
 */
const TYPED_NODE_FAILURES: ReadonlySet<string> = new Set<FlowErrorType>([
  'expression_budget',
  'code_error',
  'code_timeout',
  'code_memory',
  'code_output_too_large',
  'code_backend_disabled',
]);

/** The `type` of a node failure caused by `cause`: its typed code, else `node_error`. */
export function nodeFailureType(cause: unknown): FlowErrorType {
  const code =
    typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' && TYPED_NODE_FAILURES.has(code)
    ? (code as FlowErrorType)
    : 'node_error';
}

export type FlowErrorName =
  | 'NodeExecutionError'
  | 'NodeTimeout'
  | 'FlowTimeout'
  | 'FlowCancelled'
  | 'ErrorResult'
  | 'NodeNotFound'
  | 'ResumeError'
  | 'StepLimit'
  | 'NestingLimit'
  | 'FlowError';

/** The JSON-safe summary of an underlying error kept in `FlowError.cause`. */
export interface ErrorCause {
  name: string;
  message: string;
  code?: number | string | null;
  type?: string;
}

export interface FlowErrorInit {
  code: number | null;
  type: FlowErrorType;
  name: FlowErrorName;
  message: string;
  node?: string | null | undefined;
  cause?: unknown;
}

export class FlowError extends Error {
  override name: FlowErrorName;
  readonly code: number | null;
  readonly type: FlowErrorType;
  readonly node: string | null;
  readonly retryable = false;
  /** The original thrown value, for in-process callers; `toJSON` keeps only its summary. */
  readonly originalError: unknown;

  constructor(init: FlowErrorInit) {
    super(init.message);
    this.name = init.name;
    this.code = init.code;
    this.type = init.type;
    this.node = init.node ?? null;
    this.originalError = init.cause;
    if (init.cause !== undefined) {
      Object.defineProperty(this, 'cause', {
        value: summarizeCause(init.cause),
        enumerable: false,
        writable: true,
      });
    }
  }

  get nodeId(): string | null {
    return this.node;
  }

  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = {
      name: this.name,
      code: this.code,
      type: this.type,
      message: this.message,
      node: this.node,
      retryable: false,
    };
    if (this.cause !== undefined) json.cause = this.cause;
    return json;
  }
}

/** Node authors throw this for a node error with a specific numeric code (e.g. http 1001-1003). */
export class NodeError extends Error {
  override readonly name: string = 'NodeError';
  readonly code: number;

  constructor(code: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Node authors throw this to end the flow with a business error, exactly like an `end` error. */
export class FlowResultError extends Error {
  override readonly name: string = 'FlowResultError';
  readonly code: number | null;

  constructor(code: number | null, message: string | null) {
    super(message ?? '');
    this.code = code;
  }
}

export function summarizeCause(error: unknown): ErrorCause {
  if (error instanceof FlowError) {
    return { name: error.name, message: error.message, code: error.code, type: error.type };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const summary: ErrorCause = { name: error.name, message: error.message };
    // A code the error record can store: NaN or an infinity (Number(undefined) passed as a code)
    // would make the write of the node's real error itself fail.
    if ((typeof code === 'number' && Number.isFinite(code)) || typeof code === 'string')
      summary.code = code;
    // A node error wrapping a typed reason (e.g. http 1002 because of response_too_large)
    // keeps that reason: it is what an operator filters on.
    const reason = (error.cause as { code?: unknown } | undefined)?.code;
    if (typeof reason === 'string') summary.type = reason;
    return summary;
  }
  return { name: typeof error, message: String(error) };
}
