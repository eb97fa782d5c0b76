/**
 * Errors raised by the expression language. They are plain `Error` subclasses on purpose: the
 * engine wraps whatever a node field evaluation throws into its own node error, so these only
 * need a stable `name` and the data a message reader wants (the expression, the function).
 */

/** A string that does not parse, a missing root, a bad index, or nesting that runs too deep. */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  /** The expression text being parsed or evaluated when the error happened. */
  readonly expression: string;
  /** Parse errors: the 0-based offset in `expression` where parsing failed; otherwise null. */
  readonly position: number | null;

  constructor(
    message: string,
    expression: string,
    options?: ErrorOptions & { position?: number | undefined },
  ) {
    super(message, options);
    this.expression = expression;
    this.position = options?.position ?? null;
  }
}

/** A `$F` call that failed: unknown name, wrong argument count or types, division by zero, … */
export class FunctionCallError extends Error {
  override readonly name = 'FunctionCallError';
  readonly functionName: string;

  constructor(functionName: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.functionName = functionName;
  }
}

/** Two values that §5.7 cannot order, or a membership test on a container that has none. */
export class ValueTypeError extends Error {
  override readonly name = 'ValueTypeError';
}

/** Registering a name twice without `override`, or a name no expression could ever call. */
export class FunctionRegistrationError extends Error {
  override readonly name = 'FunctionRegistrationError';
}

/**
 * An evaluation used more work, memory or time than its budget allows (see `expression/meter.ts`). It is
 * never retried: the same expression on the same data would only burn the budget again.
 */
export class ExpressionBudgetError extends Error {
  override readonly name = 'ExpressionBudgetError';
  readonly code = 'expression_budget';
  readonly retryable = false;
}
