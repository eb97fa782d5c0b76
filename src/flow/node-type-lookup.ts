import type { NodeType } from './node-type.js';
import type { RuntimeLimits } from './runtime-limits.js';

/** The part of a node registry the loader needs. */
export interface NodeTypeLookup {
  get(type: string): NodeType | undefined;
  types(): string[];
  /** The operator's limits flows loaded with this registry will run under (default: the defaults). */
  readonly limits?: Partial<RuntimeLimits> | undefined;
}
