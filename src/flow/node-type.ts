import type { Condition } from '../expression/condition.js';
import type { Context } from '../expression/scope.js';
import type { Flow } from './flow.js';
import type { FlowLoader } from './flow-loader.js';
import type { RuntimeLimits } from './runtime-limits.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { MaybePromise } from '../util/maybe-promise.js';

export type ExecutionMode = 'run' | 'step' | 'distributed';
export type HandlerStrategy = 'abort' | 'continue' | 'continue-with';

/** A normalised `errorHandler` / `timeoutHandler` (docs/flow-format.md §2.1). */
export interface HandlerDef {
  strategy: HandlerStrategy;
  defaultValue: unknown;
  code: number | null;
  message: string | null;
  /** Attempts are `retryTimes + 1`; a negative value means none (docs/flow-format.md §7.4). */
  retryTimes: number;
  retryDelayMs: number | null;
  retryBackoff: number;
}

/** Fields every node has, normalised (docs/flow-format.md §2.1). */
export interface CommonNodeDef {
  type: string;
  id: string;
  name: string | null;
  desc: string | null;
  next: string | null;
  output: unknown;
  timeoutMs: number | null;
  errorHandler: HandlerDef;
  timeoutHandler: HandlerDef;
  /** `false` on the node overrides the flow's `idempotencyKey` (http). */
  idempotencyKey: boolean | null;
}

export type NodeDef<Fields = Record<string, unknown>> = CommonNodeDef & Fields;

/** A branching node's target with the label of its edge in a drawn graph. */
export interface LabelledTarget {
  readonly to: string;
  readonly label: string | null;
}

/** Options of the run that nodes may read. */
export interface NodeRunOptions {
  timeZone: string | undefined;
  callbackBaseUrl: string;
  events: EventSubscriptions | undefined;
  resolveFlow: ResolveFlow | undefined;
  tenantId: string | undefined;
  /** The operator's limits (runtime-limits.ts): a node never exceeds them. */
  limits: RuntimeLimits;
}

export type ResolveFlow = (
  flowId: string,
  version: string | null,
) => MaybePromise<Flow | null | undefined>;

/** The host's subscription interface for suspension (docs/flow-format.md §3.17). */
export interface EventSubscriptions {
  subscribe(request: {
    eventType: string;
    filter: Record<string, unknown>;
    correlationId: string;
    flowId: string | null;
    nodeId: string;
    /** The visit of the node that subscribes (1 on its first): one subscription per visit. */
    visit: number;
    state: Record<string, unknown>;
  }): MaybePromise<string>;
  unsubscribe?(subscriptionId: string): MaybePromise<void>;
}

/** What a node's `run` receives (docs/flow-format.md §9.2). */
export interface NodeContext<Fields = Record<string, unknown>> {
  readonly def: NodeDef<Fields>;
  readonly nodeId: string;
  /** docs/flow-format.md §5, parent fallback included. */
  evaluate(value: unknown): MaybePromise<unknown>;
  /** docs/flow-format.md §4, with extra roots (e.g. `$LOOP-ITEM`) visible to this evaluation only. */
  matches(condition: Condition | null, extraRoots?: Context): MaybePromise<boolean>;
  readonly input: unknown;
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  readonly executionId: string;
  readonly flowId: string | null;
  readonly flow: Flow;
  /** `$VISITS[id] + 1` when this run started: retries share it (docs/flow-format.md §2.3). */
  readonly visit: number;
  /** 1-based attempt number within this visit. */
  readonly attempt: number;
  /** `<executionId>:<nodeId>:<visit>` — stable across retries and re-deliveries. */
  readonly idempotencyKey: string;
  /** Fires on node timeout, flow timeout, cancellation or lease loss. */
  readonly signal: AbortSignal;
  /** Absolute epoch ms (of `clock`) when this node's budget ends, or null. */
  readonly deadline: number | null;
  /**
   * The execution's clock (`EngineOptions.clock`): read the time and set timers through it, not
   * `Date.now()`, so a fake clock in tests reaches the node too.
   */
  readonly clock: Clock;
  /**
   * Throws when the signal fired or a deadline passed. Loops call it between iterations:
   * timers cannot fire while a loop never yields to the event loop.
   */
  throwIfAborted(): void;
  /** A child execution (docs/flow-format.md §2.4): runs `flow` to its end in run mode, returns its result. */
  runChild(
    flow: Flow,
    input: unknown,
    slot: string | number,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
  readonly log: Logger;
  readonly mode: ExecutionMode;
  readonly options: NodeRunOptions;
  /** The host's flow resolver (`reference` nodes). */
  resolveFlow(flowId: string, version: string | null): Promise<Flow | null>;
  /** Report a non-fatal finding. */
  warn(message: string): void;
}

/** Resume types that reach a suspended node (docs/flow-format.md §6.5). */
export type ResumeType = 'event' | 'timeout' | 'cancel';

/**
 * How a suspended node of a type waits, declared by the type (`NodeType.wait`), so a host
 * schedules its timers from the step's `Waiting` without knowing any type's fields.
 */
export interface NodeWait {
  /** A `timeout` resume after this long (ms); null or absent: waits for ever. The node's own `timeout` field wins. */
  timeoutMs?: number | null;
  /** The suspension's due time (`Waiting.dueAt`) delivers an event (a `delay`), not a timeout. */
  delay?: boolean;
  /** What a `delay` timer's event carries beside the common fields, from the suspended node's state. */
  timerData?: (suspended: Readonly<Record<string, unknown>>) => Record<string, unknown>;
}

/** A node type (docs/flow-format.md §9.1). Built-ins and plugins use the same shape. */
export interface NodeType<Fields = Record<string, unknown>> {
  readonly type: string;
  readonly name?: string | undefined;
  readonly branching?: boolean | undefined;
  /** Branches without `next` target their `name`. */
  readonly branchNameAsTarget?: boolean | undefined;
  readonly suspending?: boolean | undefined;
  /**
   * Runs no host code but `$F` functions, has no side effect and never waits; its expressions
   * are bounded in time and memory (it may fail, as a flow error). A durable worker may run
   * such a node as a fresh execution's first step before its start is checkpointed, when every
   * `$F` function is a built-in and no hook is set: a crash there replays nothing, and the
   * node cannot be what crashed the worker. A type that sets it vouches for its `run`: one that
   * copies a built-in's fields with a `run` of its own must not copy this.
   */
  readonly inert?: boolean | undefined;
  /**
   * Its only work is running the child flows it embeds, inline (a loop body, a branch): it
   * evaluates its own expressions and nothing else. A durable worker may recompute such a node
   * after a crash instead of storing it first when its expressions and every node of those
   * flows are replayable (docs/durable-contract.md §5; src/flow/analysis/replayability.ts).
   */
  readonly runsOnlyChildren?: boolean | undefined;
  /**
   * Its `run` and `resume` never change in place a value they read through `ctx.input`,
   * `ctx.get` or `ctx.evaluate` (those are the execution's own values, not copies). The
   * built-ins set it. Without it, such a read by the node (host code, which may change what it
   * got) makes that step's checkpoint a whole one, taken after the context is detached from
   * the checkpoint before: a change made in place is then stored, not kept by the live run
   * alone (a number, string, boolean or null read costs nothing). A type that copies a
   * built-in's fields with a `run` of its own must not copy this.
   */
  readonly leavesValuesAlone?: boolean | undefined;
  /** Validator for the node-specific fields; failures become definition errors with paths. */
  readonly schema?: { parse(raw: unknown): unknown } | undefined;
  /** Built-ins: turn the raw fields into the definition (child flows, conditions, spellings). */
  readonly load?: ((raw: Record<string, unknown>, loader: FlowLoader) => Fields) | undefined;
  run(ctx: NodeContext<Fields>): unknown;
  readonly resume?:
    | ((
        ctx: NodeContext<Fields>,
        type: ResumeType,
        data: unknown,
        state: Record<string, unknown>,
      ) => unknown)
    | undefined;
  /** Warnings only: never fails a load. */
  readonly validate?: ((def: NodeDef<Fields>) => string[] | undefined | void) | undefined;
  /**
   * The ids a branching node may return (docs/flow-format.md §2.2 rule 3), each optionally with
   * the words a drawn graph puts on its edge (`true`, a branch's name).
   */
  readonly targets?: ((def: NodeDef<Fields>) => Array<string | LabelledTarget>) | undefined;
  /** Suspending types: how long a suspension waits, and whether its due time is a delay. */
  readonly wait?: ((def: NodeDef<Fields>) => NodeWait) | undefined;
  /** Known keys, for the unknown-key warning. */
  readonly keys?: readonly string[] | undefined;
}
