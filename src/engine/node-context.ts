import type { Condition } from '../expression/condition.js';
import { matchCondition } from '../expression/condition.js';
import { evaluateValue } from '../expression/evaluate.js';
import { EvaluationMeter } from '../expression/meter.js';
import type { Context, EvaluationScope } from '../expression/scope.js';
import type { Flow, LoadedNode } from '../flow/flow.js';
import type { ExecutionMode, NodeContext, NodeDef, NodeRunOptions } from '../flow/node-type.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { Budget } from './budget.js';
import { cloneContext } from './context-snapshot.js';
import type { Execution } from './execution.js';

/** The `ctx` a node's `run` receives (docs/flow-format.md §9.2). A class: one cheap object per attempt. */
class NodeContextImpl implements NodeContext {
  readonly def: NodeDef;
  readonly nodeId: string;
  readonly idempotencyKey: string;
  #log: Logger | undefined;
  /** Host code that may change what it reads in place (NodeType.leavesValuesAlone unset). */
  readonly #mayChangeReads: boolean;

  /** Private: host code reading the live context directly would bypass #read's detaching. */
  readonly #execution: Execution;

  constructor(
    execution: Execution,
    readonly node: LoadedNode,
    readonly budget: Budget,
    readonly visit: number,
    readonly attempt: number,
  ) {
    this.#execution = execution;
    this.def = node.def;
    this.nodeId = node.def.id;
    this.idempotencyKey = `${execution.executionId}:${node.def.id}:${visit}`;
    this.#mayChangeReads = node.nodeType.leavesValuesAlone !== true;
  }

  /** Before host code gets a reference into the context: see NodeType.leavesValuesAlone. */
  #beforeRead(): void {
    if (this.#mayChangeReads) this.#execution.beforeMutationUpwards();
  }

  /** `key`'s value for host code; a number or string cannot be changed in place, so it costs nothing. */
  #read(key: string): unknown {
    const value = entry(this.#execution.context, key);
    if (typeof value !== 'object' || value === null || !this.#mayChangeReads) return value;
    this.#execution.beforeMutationUpwards();
    return entry(this.#execution.context, key); // the detached copy's, if there was one to make
  }

  evaluate(value: unknown): MaybePromise<unknown> {
    // Literals (numbers, booleans, null) need no budget; strings and containers get one each.
    if (typeof value !== 'object' && typeof value !== 'string') return value;
    if (value === null) return null;
    this.#beforeRead();
    return evaluateValue(value, this.#execution, { fallback: true, meter: this.#meter() });
  }

  matches(condition: Condition | null, extraRoots?: Context): MaybePromise<boolean> {
    if (condition === null) return false;
    return matchCondition(condition, conditionScope(this.#execution, extraRoots), this.#meter());
  }

  /** One evaluation's budget: the node's remaining time on the clock, capped by the operator's bound. */
  #meter(): EvaluationMeter {
    const { maxEvaluationMs, nestedDataExpressions } = this.#execution.options.limits;
    const nodeDeadline = this.budget.effectiveDeadline();
    const remainingMs = nodeDeadline === null ? Infinity : nodeDeadline - this.clock.now();
    return new EvaluationMeter(Math.min(remainingMs, maxEvaluationMs), nestedDataExpressions);
  }

  get input(): unknown {
    return this.#read('$INPUT');
  }

  get(key: string): unknown {
    return this.#read(key);
  }

  set(key: string, value: unknown): void {
    this.#execution.setEntry(key, value);
  }

  get executionId(): string {
    return this.#execution.executionId;
  }

  get flowId(): string | null {
    return this.#execution.flow.id;
  }

  get flow(): Flow {
    return this.#execution.flow;
  }

  get signal(): AbortSignal {
    return this.budget.signal;
  }

  get deadline(): number | null {
    return this.budget.effectiveDeadline();
  }

  get clock(): Clock {
    return this.#execution.clock;
  }

  throwIfAborted(): void {
    this.budget.check();
  }

  runChild(
    flow: Flow,
    input: unknown,
    slot: string | number,
    options: { signal?: AbortSignal } = {},
  ): Promise<unknown> {
    const child = this.#execution.child({
      flow,
      input,
      node: this.node,
      visit: this.visit,
      slot,
      nodeBudget: this.budget,
      signal: options.signal,
    });
    return this.#execution.childRunner(child);
  }

  get log(): Logger {
    this.#log ??= this.#execution.log.child({
      executionId: this.#execution.executionId,
      node: this.nodeId,
    });
    return this.#log;
  }

  get mode(): ExecutionMode {
    return this.#execution.mode;
  }

  get options(): NodeRunOptions {
    const o = this.#execution.options;
    return {
      timeZone: o.timeZone,
      callbackBaseUrl: o.callbackBaseUrl,
      events: o.events,
      resolveFlow: o.resolveFlow,
      tenantId: o.tenantId,
      limits: o.limits,
    };
  }

  async resolveFlow(flowId: string, version: string | null): Promise<Flow | null> {
    const resolver = this.#execution.options.resolveFlow;
    if (!resolver) return null;
    return (await resolver(flowId, version)) ?? null;
  }

  warn(message: string): void {
    this.#execution.warn(`node '${this.nodeId}': ${message}`);
  }
}

function entry(context: Context, key: string): unknown {
  return Object.hasOwn(context, key) ? context[key] : undefined;
}

/**
 * Where a condition is evaluated (docs/flow-format.md §4): it must leave the state as it was, as
 * the original's loop and while conditions do by evaluating on a deep copy. Ours copies only on
 * write: the scope reads the live context (plus extra roots such as `$LOOP-ITEM`), and the first
 * mutating `$F` call swaps in a private deep copy that is dropped with the scope. A condition
 * without one — nearly all — costs this object and nothing more.
 */
function conditionScope(execution: Execution, extraRoots: Context | undefined): EvaluationScope {
  let copied = false;
  const scope = {
    context: extraRoots ? { ...execution.context, ...extraRoots } : execution.context,
    functions: execution.functions,
    timeZone: execution.timeZone,
    clock: execution.clock,
    beforeMutation: () => {
      if (copied) return;
      copied = true;
      // `$PARENT` too: it is the parent's values, which a condition must not change either.
      scope.context = cloneContext(scope.context);
    },
    warn: (m: string) => execution.warn(m),
  };
  return scope;
}

export function createNodeContext(
  execution: Execution,
  node: LoadedNode,
  budget: Budget,
  visit: number,
  attempt: number,
): NodeContext {
  return new NodeContextImpl(execution, node, budget, visit, attempt);
}
