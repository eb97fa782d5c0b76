import type { NodeContext, NodeDef, NodeType, ResumeType } from './node-type.js';
import type { TypeSchema } from './type-schema.js';

/** One node of a loaded flow: its normalised definition and how to run it. */
export interface LoadedNode {
  readonly def: NodeDef;
  readonly nodeType: NodeType;
  /** Position in the document's `nodes` array. */
  readonly index: number;
  /** Branching nodes: the ids the result may name (docs/flow-format.md §2.2 rule 3). */
  readonly targets: ReadonlySet<string> | null;
  run(ctx: NodeContext): unknown;
  resume(
    ctx: NodeContext,
    type: ResumeType,
    data: unknown,
    state: Record<string, unknown>,
  ): unknown;
}

/** A validated flow document, ready to run. Immutable once loaded. */
export interface Flow {
  readonly id: string | null;
  readonly version: string | null;
  readonly runtime: string | null;
  readonly nodes: readonly LoadedNode[];
  /** Duplicate ids: the last definition wins for lookup (docs/flow-format.md §1.1). */
  readonly nodesById: ReadonlyMap<string, LoadedNode>;
  /** The first node of type `start`, or null (the run then fails with node_not_found). */
  readonly startNode: LoadedNode | null;
  readonly timeoutMs: number | null;
  readonly globalContext: Readonly<Record<string, unknown>>;
  readonly exposeEnv: readonly string[];
  readonly idempotencyKey: boolean;
  /** Most node visits one execution may make (new); null: the operator's ceiling alone. */
  readonly maxSteps: number | null;
  readonly inputType: TypeSchema | null;
  readonly outputType: TypeSchema | null;
  readonly warnings: readonly string[];
  /** The parsed document this flow was loaded from (hashing, the flow store). */
  readonly document: Readonly<Record<string, unknown>>;
}
