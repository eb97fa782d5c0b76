import type { Clock } from '../util/clock.js';
import type { FunctionRegistry } from './function-registry.js';

/** Execution context roots: `$INPUT`, `$NODE`, `$GLOBAL`, ... (docs/flow-format.md §5.4). */
export type Context = Record<string, unknown>;

/** What an expression can see: the context, the registered functions, nothing else. */
export interface EvaluationScope {
  /** Read on every evaluation (the engine may swap it after `beforeMutation`). */
  readonly context: Context;
  readonly functions: FunctionRegistry;
  /** The parent execution's scope, for parent fallback (docs/flow-format.md §5.5). */
  readonly parent?: EvaluationScope | undefined;
  /** IANA zone for `$F.now`/`$F.today`; default the process zone. */
  readonly timeZone?: string | undefined;
  /** What `$F.now`/`$F.today` read (the execution's clock); default the system clock. */
  readonly clock?: Clock | undefined;
  /**
   * Called before a function registered with `sideEffects: true` runs, before its arguments
   * are evaluated, so the engine can detach the live context from snapshots it has handed out.
   */
  beforeMutation?(): void;
  /** Non-fatal findings (e.g. a string that looks like another template language). */
  warn?(message: string): void;
}
