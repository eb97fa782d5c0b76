import type { NodeTypeLookup } from '../flow/node-type-lookup.js';
import type { RuntimeLimits } from '../flow/runtime-limits.js';
import type { NodeContext, NodeDef, NodeType } from '../flow/node-type.js';
import { getDefaultLogger, type Logger } from '../util/logger.js';
import { NodeRegistryError } from '../errors/node-errors.js';

/** A class-style node type (docs/flow-format.md §9.1): static members, instantiated once per flow node. */
export interface NodeClass {
  readonly type: string;
  readonly branching?: boolean;
  readonly branchNameAsTarget?: boolean;
  readonly suspending?: boolean;
  /** NodeType.leavesValuesAlone: its instances never change in place what they read. */
  readonly leavesValuesAlone?: boolean;
  readonly schema?: { parse(raw: unknown): unknown };
  validate?(def: NodeDef): string[] | undefined | void;
  new (def: NodeDef): {
    run(ctx: NodeContext): unknown;
    resume?(ctx: NodeContext, type: string, data: unknown, state: Record<string, unknown>): unknown;
  };
}

export type NodeDefinition = NodeType | NodeClass;

/** Maps a node `type` to its implementation (docs/flow-format.md §9.3). */
export class NodeRegistry implements NodeTypeLookup {
  readonly #types = new Map<string, NodeType>();
  readonly #log: Logger;
  /**
   * The operator's limits flows loaded with this registry run under: node types read them
   * at load (`FlowLoader.limits`), e.g. to refuse a code node whose backend is not enabled.
   * Pass the same limits to the engine (`EngineOptions.limits`).
   */
  readonly limits: Partial<RuntimeLimits> | undefined;

  constructor(
    types: Iterable<NodeDefinition> = [],
    options: { logger?: Logger; limits?: Partial<RuntimeLimits> | undefined } = {},
  ) {
    this.#log = options.logger ?? getDefaultLogger();
    this.limits = options.limits;
    for (const t of types) this.register(t);
  }

  /** A later registration of the same type replaces the earlier one, with a warning. */
  register(definition: NodeDefinition): this {
    const nodeType = typeof definition === 'function' ? fromClass(definition) : definition;
    if (typeof nodeType.type !== 'string' || nodeType.type === '') {
      throw new NodeRegistryError('a node definition needs a non-empty string "type"');
    }
    if (typeof nodeType.run !== 'function') {
      throw new NodeRegistryError(`node type "${nodeType.type}" needs a run(ctx) function`);
    }
    if (this.#types.has(nodeType.type))
      this.#log.warn(
        { type: nodeType.type },
        'node type re-registered: the later definition replaces the earlier',
      );
    this.#types.set(nodeType.type, nodeType);
    return this;
  }

  unregister(type: string): boolean {
    return this.#types.delete(type);
  }

  get(type: string): NodeType | undefined {
    return this.#types.get(type);
  }

  has(type: string): boolean {
    return this.#types.has(type);
  }

  types(): string[] {
    return [...this.#types.keys()];
  }

  copy(): NodeRegistry {
    return new NodeRegistry(this.#types.values(), { logger: this.#log, limits: this.limits });
  }

  /** A copy whose flows load under `limits` (the same node types). */
  withLimits(limits: Partial<RuntimeLimits> | undefined): NodeRegistry {
    return new NodeRegistry(this.#types.values(), { logger: this.#log, limits });
  }
}

/**
 * Adapts a class: one instance per flow node, created on first use with that node's
 * normalised definition and reused for every run of the node.
 */
function fromClass(cls: NodeClass): NodeType {
  const instances = new WeakMap<NodeDef, InstanceType<NodeClass>>();
  const instanceFor = (def: NodeDef): InstanceType<NodeClass> => {
    let instance = instances.get(def);
    if (!instance) {
      instance = new cls(def);
      instances.set(def, instance);
    }
    return instance;
  };
  return {
    type: cls.type,
    branching: cls.branching,
    branchNameAsTarget: cls.branchNameAsTarget,
    suspending: cls.suspending,
    leavesValuesAlone: cls.leavesValuesAlone,
    schema: cls.schema,
    validate: cls.validate ? (def) => cls.validate?.(def) : undefined,
    run: (ctx) => instanceFor(ctx.def).run(ctx),
    resume: (ctx, type, data, state) => {
      const instance = instanceFor(ctx.def);
      if (!instance.resume) throw new Error(`node type "${cls.type}" cannot resume`);
      return instance.resume(ctx, type, data, state);
    },
  };
}

/** Makes a node type object (docs/flow-format.md §9.1). The object's `run` receives the definition as `ctx.def`. */
export function defineNode<Fields = Record<string, unknown>>(
  definition: NodeType<Fields>,
): NodeType<Fields> {
  return definition;
}
