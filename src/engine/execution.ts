import type { FunctionRegistry } from '../expression/function-registry.js';
import type { Context, EvaluationScope } from '../expression/scope.js';
import type { Flow, LoadedNode } from '../flow/flow.js';
import { exposedEnv } from '../flow/secret-env.js';
import type { ExecutionMode } from '../flow/node-type.js';
import type { Clock } from '../util/clock.js';
import { childExecutionId, randomExecutionId } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import { getOwn, setOwn } from '../util/own-record.js';
import { Budget } from './budget.js';
import { nestingLimit, stepLimit } from './flow-failures.js';
import { cloneContext, snapshotContext } from './context-snapshot.js';
import type { ResolvedOptions } from './engine-options.js';
import { type HookEventBase, type FlowHooks, fireHooks, type HookName } from './hooks.js';

/**
 * Runs a child execution to its end (run mode). The run loop is handed to each root execution
 * rather than imported where children start: the loop runs nodes, so a node context importing
 * it would close an import cycle (node-context → run-loop → run-node → node-context).
 */
export type ChildRunner = (child: Execution) => Promise<unknown>;

export interface ChildSpec {
  flow: Flow;
  input: unknown;
  node: LoadedNode;
  visit: number;
  slot: string | number;
  nodeBudget: Budget;
  signal?: AbortSignal | undefined;
}

/**
 * One execution of a flow: its live context, its budget and its place in the tree of child
 * executions. It is also the expression scope its nodes evaluate in.
 */
export class Execution implements EvaluationScope {
  #context: Context;
  /** True once a snapshot shares structure with the live context (copy-on-write). */
  #shared = false;
  readonly budget: Budget;
  readonly functions: FunctionRegistry;
  readonly timeZone: string | undefined;
  /** The run's clock: budgets, and what `$F.now`/`$F.today` read (the scope carries it). */
  readonly clock: Clock;
  readonly log: Logger;
  readonly #warned = new Set<string>();
  /** Node results written by this execution object (for incremental checkpoints). */
  readonly #touched = new Set<string>();
  /** A mutating `$F` function ran: any stored value may have changed. */
  #mutated = false;
  /** Node visits so far (from `$VISITS` when restored from a checkpoint), for the step limit. */
  #steps: number | undefined;

  /** 0 at the top level, one more per child execution below it. */
  readonly depth: number;

  constructor(
    readonly flow: Flow,
    readonly options: ResolvedOptions,
    readonly mode: ExecutionMode,
    context: Context,
    budget: Budget,
    /** How a node's `ctx.runChild` runs the child it starts; children inherit it. */
    readonly childRunner: ChildRunner,
    /** The parent execution: `parent` is also the scope parent fallback walks (docs/flow-format.md §5.5). */
    readonly parent: Execution | undefined = undefined,
  ) {
    this.depth = parent ? parent.depth + 1 : 0;
    this.#context = context;
    this.budget = budget;
    this.functions = options.functions;
    this.timeZone = options.timeZone;
    this.clock = options.clock;
    this.log = options.log;
  }

  get context(): Context {
    return this.#context;
  }

  get executionId(): string {
    return this.#context.$EXECUTION_ID as string;
  }

  get hooks(): readonly FlowHooks[] {
    return this.options.hooks;
  }

  /** True when some registered hook implements `name` (so firing it is worth an await). */
  hasHook(name: HookName): boolean {
    return this.options.hookNames.has(name);
  }

  /**
   * Before a value of this context may change in place. A child keeps its `$PARENT` as it is
   * (read-only: a snapshot of the parent's values). A `$F` call that falls back to a parent
   * value runs in the parent's scope, which detaches the parent itself.
   */
  beforeMutation(): void {
    this.#mutated = true;
    if (this.#shared) {
      this.#context = cloneContext(this.#context, this.parent ? '$PARENT' : undefined);
      this.#shared = false;
    }
  }

  /** {@link beforeMutation} here and in every ancestor: host code may reach them by fallback. */
  beforeMutationUpwards(): void {
    this.beforeMutation();
    this.parent?.beforeMutationUpwards();
  }

  warn(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.log.warn({ executionId: this.executionId, flowId: this.flow.id }, message);
  }

  /** The checkpoint: later steps never change it (docs/flow-format.md §6.6). */
  snapshot(): Context {
    this.#shared = true;
    return snapshotContext(this.#context);
  }

  get nodeResults(): Record<string, unknown> {
    return this.#context.$NODE as Record<string, unknown>;
  }

  visitsOf(nodeId: string): number {
    const visits = this.#context.$VISITS as Record<string, number>;
    return getOwn(visits, nodeId) ?? 0;
  }

  /**
   * Counts one node visit against the step limit: the smaller of the flow's `maxSteps` and
   * the operator's ceiling. Past it the execution ends with FlowError `step_limit`, so a
   * cycle in the graph can never run for ever.
   */
  countStep(nodeId: string): void {
    this.#steps ??= totalVisits(this.#context.$VISITS);
    const ceiling = this.options.limits.maxSteps;
    const limit = this.flow.maxSteps === null ? ceiling : Math.min(this.flow.maxSteps, ceiling);
    if (this.#steps >= limit) throw stepLimit(nodeId, limit);
    this.#steps++;
  }

  /** docs/flow-format.md §2.3. */
  record(node: LoadedNode, result: unknown): void {
    const ctx = this.#context;
    const id = node.def.id;
    setOwn(ctx.$NODE as Record<string, unknown>, id, result);
    this.#touched.add(id);
    ctx.$LAST_NODE = id;
    ctx.$BRANCH = node.nodeType.branching ? result : null;
    const visits = ctx.$VISITS as Record<string, number>;
    setOwn(visits, id, (getOwn(visits, id) ?? 0) + 1);
  }

  /** Replaces one node's result without touching visits (a suspension's state changing). */
  replaceResult(nodeId: string, result: unknown): void {
    setOwn(this.#context.$NODE as Record<string, unknown>, nodeId, result);
    this.#touched.add(nodeId);
    this.#context.$BRANCH = null;
  }

  /** The live context shares structure with someone else's object: copy before mutating. */
  markShared(): void {
    this.#shared = true;
  }

  /** The `$NODE` entries this execution wrote, or null when a mutation may have changed any of them. */
  changedNodes(): string[] | null {
    return this.#mutated ? null : [...this.#touched];
  }

  /** {@link changedNodes} since the last call: what one step of a live stepper changed. */
  takeChanges(): string[] | null {
    const changes = this.changedNodes();
    this.#touched.clear();
    this.#mutated = false;
    return changes;
  }

  setEntry(key: string, value: unknown): void {
    this.beforeMutation();
    this.#context[key] = value;
  }

  hookBase(): HookEventBase {
    const base: HookEventBase = { flow: this.flow, executionId: this.executionId, mode: this.mode };
    if (this.parent) base.parentExecutionId = this.parent.executionId;
    return base;
  }

  async fire<K extends HookName>(
    name: K,
    extra: Omit<Parameters<NonNullable<FlowHooks[K]>>[0], keyof HookEventBase>,
  ): Promise<void> {
    if (!this.options.hookNames.has(name)) return;
    const event = { ...this.hookBase(), ...extra } as Parameters<NonNullable<FlowHooks[K]>>[0];
    await fireHooks(this.options.hooks, name, event, this.log);
  }

  /** A child execution (docs/flow-format.md §2.4): fresh context, `$PARENT` snapshot, budget inside the node's. */
  child(spec: ChildSpec): Execution {
    const limit = this.options.limits.maxChildDepth;
    if (this.depth >= limit) throw nestingLimit(spec.node.def.id, limit);
    const id = childExecutionId(this.executionId, spec.node.def.id, spec.visit, spec.slot);
    const parentSnapshot = snapshotContext(this.#context);
    const context = initialContext(spec.flow, this.options, id, spec.input, parentSnapshot);
    const deadline = spec.flow.timeoutMs === null ? null : this.clock.now() + spec.flow.timeoutMs;
    const budget = new Budget(spec.nodeBudget, deadline, 'flow', spec.signal ? [spec.signal] : []);
    const child = new Execution(
      spec.flow,
      this.options,
      'run',
      context,
      budget,
      this.childRunner,
      this,
    );
    // Its input is the parent's own value: a change in place must not reach it (`$PARENT`, the
    // other, is read-only and kept as it is: see beforeMutation).
    child.markShared();
    return child;
  }
}

function totalVisits(visits: unknown): number {
  let total = 0;
  if (typeof visits === 'object' && visits !== null)
    for (const count of Object.values(visits)) if (typeof count === 'number') total += count;
  return total;
}

/** docs/flow-format.md §6.1 setup: the roots every execution starts with. */
export function initialContext(
  flow: Flow,
  options: ResolvedOptions,
  executionId: string | undefined,
  input: unknown,
  parentSnapshot: Context = {},
): Context {
  return {
    $EXECUTION_ID: executionId ?? randomExecutionId(),
    $ENV: exposedEnv(flow.exposeEnv, options.env, options.limits.exposeSecretEnv),
    $INPUT: input,
    $PARENT: parentSnapshot,
    // A copy per execution: a mutating `$F` on `$GLOBAL.x` must not reach the parsed flow's
    // own object, which the next run of the same Flow would start from.
    $GLOBAL: { ...cloneContext(flow.globalContext), flow_id: flow.id },
    EXPRESS_PREFIX: '$',
    $FLOW_ID: flow.id,
    $FLOW: flow.id,
    $NODE: {},
    $LAST_NODE: null,
    $BRANCH: null,
    $VISITS: {},
  };
}
