import type { Condition } from '../expression/condition.js';
import type { Flow } from './flow.js';
import type { RuntimeLimits } from './runtime-limits.js';
import type { TypeSchema } from './type-schema.js';

/**
 * What a node type's `load` may ask of the loader while normalising its fields. Every helper
 * reports problems as definition issues at `<node path>.<field>` and returns a usable value,
 * so one load lists every problem of the document at once.
 */
export interface FlowLoader {
  /** Path of the node being loaded, e.g. `nodes[3]`. */
  readonly path: string;
  /**
   * The operator's limits the registry was created with (`NodeRegistry` option `limits`):
   * what a node needs from the host (a code backend) is refused here, before any run.
   */
  readonly limits: RuntimeLimits;
  /** An embedded child flow: an object, or a string holding its JSON. */
  childFlow(raw: unknown, field: string): Flow | null;
  /** Like childFlow, but absent is an issue. */
  requiredChildFlow(raw: unknown, field: string): Flow | null;
  condition(raw: unknown, field: string): Condition | null;
  typeSchema(raw: unknown, field: string): TypeSchema | null;
  /** Milliseconds or null (docs/flow-format.md §7.6). */
  duration(raw: unknown, field: string): number | null;
  /** `code`: a stable reason more precise than "does not load" (e.g. `code_backend_disabled`). */
  issue(field: string, message: string, code?: string): void;
  warn(message: string): void;
}
