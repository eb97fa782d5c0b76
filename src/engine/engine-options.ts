import type { FunctionRegistry } from '../expression/function-registry.js';
import { defaultFunctions } from '../expression/function-registry.js';
import type { EventSubscriptions, ResolveFlow } from '../flow/node-type.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import { resolveLimits, type RuntimeLimits } from '../flow/runtime-limits.js';
import { type Clock, systemClock } from '../util/clock.js';
import { parseDuration } from '../util/duration.js';
import { getDefaultLogger, type Logger } from '../util/logger.js';
import type { FlowHooks } from './hooks.js';

/** Options of `runFlow`, `stepFlow` and `runStep` (docs/flow-format.md §6.1). */
export interface EngineOptions {
  /** Environment the flow's `exposeEnv` names are read from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Used when the flow is given as a document rather than a loaded Flow. */
  registry?: NodeRegistry;
  functions?: FunctionRegistry;
  signal?: AbortSignal;
  hooks?: FlowHooks | readonly FlowHooks[];
  executionId?: string;
  /** Run budget, combined with the flow's `timeout` as the smaller (run and step modes). */
  timeout?: number | string | null;
  resolveFlow?: ResolveFlow;
  events?: EventSubscriptions;
  timeZone?: string;
  /** Base of `http_callback` URLs; default `http://localhost:8080`. */
  callbackBaseUrl?: string;
  logger?: Logger;
  tenantId?: string;
  /** Operator limits; unset fields keep their defaults (flow/runtime-limits.ts). */
  limits?: Partial<RuntimeLimits>;
  /**
   * Time of the run: budgets and node deadlines, retry waits, `$F.now`/`$F.today`, `delay` due
   * times. Default the system clock; tests pass a FakeClock to make timeouts instant.
   */
  clock?: Clock;
}

export interface ResolvedOptions {
  env: Record<string, string | undefined>;
  functions: FunctionRegistry;
  signal: AbortSignal | undefined;
  hooks: readonly FlowHooks[];
  /** Which hook methods any registered hook implements: the others are never even built. */
  hookNames: ReadonlySet<string>;
  timeoutMs: number | null;
  resolveFlow: ResolveFlow | undefined;
  events: EventSubscriptions | undefined;
  timeZone: string | undefined;
  callbackBaseUrl: string;
  log: Logger;
  tenantId: string | undefined;
  limits: RuntimeLimits;
  clock: Clock;
}

const HOOK_NAMES = [
  'onFlowStart',
  'onFlowEnd',
  'onNodeStart',
  'onNodeEnd',
  'onNodeSuspend',
  'onFlowSuspend',
  'onFlowResume',
  'onNodeResume',
] as const satisfies readonly (keyof FlowHooks)[];

/** Callers that run many steps with one options object (the worker) resolve it once. */
const resolved = new WeakMap<EngineOptions, ResolvedOptions>();

export function resolveOptions(options: EngineOptions = {}): ResolvedOptions {
  let result = resolved.get(options);
  if (!result) {
    result = resolveFresh(options);
    resolved.set(options, result);
  }
  return result;
}

function resolveFresh(options: EngineOptions): ResolvedOptions {
  const hooks =
    options.hooks === undefined
      ? []
      : Array.isArray(options.hooks)
        ? options.hooks
        : [options.hooks as FlowHooks];
  return {
    env: options.env ?? process.env,
    functions: options.functions ?? defaultFunctions,
    signal: options.signal,
    hooks,
    hookNames: new Set(
      hooks.flatMap((hook: FlowHooks) =>
        HOOK_NAMES.filter((name) => typeof hook[name] === 'function'),
      ),
    ),
    timeoutMs: parseDuration(options.timeout ?? null),
    resolveFlow: options.resolveFlow,
    events: options.events,
    timeZone: options.timeZone,
    callbackBaseUrl: options.callbackBaseUrl ?? 'http://localhost:8080',
    log: options.logger ?? getDefaultLogger(),
    tenantId: options.tenantId,
    limits: resolveLimits(options.limits),
    clock: options.clock ?? systemClock,
  };
}
