/**
 * Limits an operator sets for every flow a process runs, whatever the flow document says.
 * A flow may ask for less (a smaller `maxSteps`, `blockPrivateNetworks: true`); it can never
 * get more than these. The defaults suit a trusted flow run from a terminal; `plaita serve`
 * and `plaita worker` tighten them (see docs/limits.md).
 */
export interface RuntimeLimits {
  /**
   * Who decides whether http nodes may reach loopback, private, link-local and other special
   * addresses: `flow` lets each node's `blockPrivateNetworks` decide, `deny` blocks them for
   * every node, `allow` lifts the block even where a node asked for it.
   */
  privateNetworks: 'flow' | 'deny' | 'allow';
  /** Ceiling of an http response body in bytes (a node may set a smaller `maxResponseBytes`). */
  maxResponseBytes: number;
  /** Ceiling of node visits per execution (a flow may set a smaller `maxSteps`). */
  maxSteps: number;
  /**
   * Deepest nesting of child executions (a `reference`, the child flows of loops, `map`,
   * `parallel`): a flow that references itself would otherwise recurse until memory runs out,
   * each level with a fresh step count.
   */
  maxChildDepth: number;
  /** Ceiling of `while`/`loop` iterations, whatever `maxIterations` a node asks for. */
  maxIterations: number;
  /** Wall-clock bound of one expression evaluation when no node or flow timeout is nearer. */
  maxEvaluationMs: number;
  /**
   * Whether a `$…` string found while walking input, event or response data is evaluated as
   * an expression (docs/flow-format.md §5.5, the original's rule). Off: only strings under `$GLOBAL`,
   * which come from the flow document itself, are.
   */
  nestedDataExpressions: boolean;
  /** Deepest nesting of a flow document, an input or event data (arrays and objects). */
  maxDepth: number;
  /**
   * Which backends may run `code` nodes: `quickjs` (JavaScript in a WebAssembly sandbox, no
   * host access) and `python` (a `python3 -I` subprocess that runs with the worker's rights).
   * `python` also enables every other node that starts a process (the `capture` plugin). A
   * node needing a backend not listed fails at load (`code_backend_disabled`), never mid-run.
   */
  codeBackends: readonly CodeBackend[];
  /** CPU time of one JavaScript code run, enforced by the sandbox's interrupt handler. */
  codeTimeoutMs: number;
  /** Heap of one JavaScript code run (the sandbox's memory limit), bytes. */
  codeMemoryBytes: number;
  /** Largest result of a code node (its encoded form), and of each captured output stream. */
  codeOutputBytes: number;
  /**
   * Threads JavaScript code nodes run on, off the calling thread's event loop (tenants take
   * turns; docs/code-node.md "Threads"). 0: on the calling thread, as a library does by
   * default; `plaita serve` and `plaita worker` use 2.
   */
  codeThreads: number;
  /** Wall-clock ceiling of a subprocess (a Python code node, a `capture` command). */
  subprocessTimeoutMs: number;
  /** Address space of a subprocess (`RLIMIT_AS`), bytes. */
  subprocessMemoryBytes: number;
  /**
   * Secret-looking variable names (flow/secret-env.ts: `AWS_SECRET…`, `TOKEN…`, `PASSWORD…`)
   * a flow's `exposeEnv` may still read. Without this, `$ENV` leaves them out even when a flow
   * lists them: a flow document alone cannot reach a secret.
   */
  exposeSecretEnv: readonly string[];
}

export const CODE_BACKENDS = ['quickjs', 'python'] as const;
export type CodeBackend = (typeof CODE_BACKENDS)[number];

export const DEFAULT_LIMITS: Readonly<RuntimeLimits> = Object.freeze({
  privateNetworks: 'flow',
  maxResponseBytes: 10 * 1024 * 1024,
  maxSteps: 10_000,
  maxChildDepth: 100,
  maxIterations: 100_000,
  maxEvaluationMs: 1_000,
  nestedDataExpressions: true,
  maxDepth: 256,
  codeBackends: Object.freeze(['quickjs'] as CodeBackend[]),
  codeTimeoutMs: 1_000,
  codeMemoryBytes: 32 * 1024 * 1024,
  codeOutputBytes: 1024 * 1024,
  codeThreads: 0,
  subprocessTimeoutMs: 10 * 60_000,
  subprocessMemoryBytes: 1024 * 1024 * 1024,
  exposeSecretEnv: Object.freeze([] as string[]),
});

/** Defaults overlaid with what the caller set (unset fields keep the default). */
export function resolveLimits(limits: Partial<RuntimeLimits> | undefined): RuntimeLimits {
  if (!limits) return DEFAULT_LIMITS;
  const out: RuntimeLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(limits) as (keyof RuntimeLimits)[]) {
    const value = limits[key];
    if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  }
  return out;
}
