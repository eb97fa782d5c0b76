import { z } from 'zod';
import type { FlowLoader } from '../flow/flow-loader.js';
import type {
  LabelledTarget,
  NodeContext,
  NodeDef,
  NodeType,
  NodeWait,
  ResumeType,
} from '../flow/node-type.js';

/** A built-in node type: a zod shape for its raw fields (all spellings) and a typed `load`. */
export interface BuiltinSpec<S extends z.ZodObject, F> {
  type: string;
  schema: S;
  load(raw: z.infer<S>, loader: FlowLoader): F;
  run(ctx: NodeContext<NoInfer<F>>): unknown;
  branching?: boolean;
  targets?(def: NodeDef<NoInfer<F>>): Array<string | LabelledTarget>;
  suspending?: boolean;
  inert?: boolean;
  runsOnlyChildren?: boolean;
  resume?(
    ctx: NodeContext<NoInfer<F>>,
    type: ResumeType,
    data: unknown,
    state: Record<string, unknown>,
  ): unknown;
  validate?(def: NodeDef<NoInfer<F>>): string[];
  wait?(def: NodeDef<NoInfer<F>>): NodeWait;
}

export function builtinNode<S extends z.ZodObject, F>(spec: BuiltinSpec<S, F>): NodeType {
  return {
    type: spec.type,
    schema: spec.schema,
    branching: spec.branching,
    branchNameAsTarget: spec.branching ? true : undefined,
    suspending: spec.suspending,
    inert: spec.inert,
    runsOnlyChildren: spec.runsOnlyChildren,
    leavesValuesAlone: true,
    load: (raw, loader) => spec.load(raw as z.infer<S>, loader) as Record<string, unknown>,
    run: (ctx) => spec.run(ctx as unknown as NodeContext<F>),
    resume: spec.resume
      ? (ctx, type, data, state) =>
          spec.resume!(ctx as unknown as NodeContext<F>, type, data, state)
      : undefined,
    targets: spec.targets ? (def) => spec.targets!(def as unknown as NodeDef<F>) : undefined,
    validate: spec.validate ? (def) => spec.validate!(def as unknown as NodeDef<F>) : undefined,
    wait: spec.wait ? (def) => spec.wait!(def as unknown as NodeDef<F>) : undefined,
  };
}

/** The first spelling present wins (docs/flow-format.md §1.2). */
export function pick<T>(...values: Array<T | undefined>): T | undefined {
  for (const v of values) if (v !== undefined) return v;
  return undefined;
}

/** An enum field whose error lists the accepted values: `expected a | b | c`. */
export function enumField<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: () => `expected ${values.join(' | ')}` });
}
