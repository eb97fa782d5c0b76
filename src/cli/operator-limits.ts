import { CODE_BACKENDS, type CodeBackend, type RuntimeLimits } from '../flow/runtime-limits.js';
import { CliError, EXIT } from './exit-codes.js';

/**
 * The operator's limits (flow/runtime-limits.ts) from PLAITA_* variables. Commands that run
 * flows for other people (`worker`, `serve`) pass stricter defaults than a terminal `run`.
 * A value that does not parse is exit 2 naming the variable, never silently ignored.
 */
/**
 * Code threads of the long-running commands (serve, worker): two keep a runaway code node off
 * the event loop (leases, heartbeats, HTTP) and let a second tenant run while one computes.
 */
export const DEFAULT_CODE_THREADS = 2;

export function limitsFromEnv(
  defaults: Partial<RuntimeLimits> = {},
  env: NodeJS.ProcessEnv = process.env,
): Partial<RuntimeLimits> {
  const limits: Partial<RuntimeLimits> = { ...defaults };
  const privateNetworks = env.PLAITA_HTTP_PRIVATE_NETWORKS?.trim();
  if (privateNetworks) {
    if (privateNetworks !== 'deny' && privateNetworks !== 'allow' && privateNetworks !== 'flow')
      throw invalid('PLAITA_HTTP_PRIVATE_NETWORKS', privateNetworks, 'deny | allow | flow');
    limits.privateNetworks = privateNetworks;
  }
  const numbers: Array<[keyof RuntimeLimits, string]> = [
    ['maxSteps', 'PLAITA_MAX_STEPS'],
    ['maxChildDepth', 'PLAITA_MAX_CHILD_DEPTH'],
    ['maxIterations', 'PLAITA_MAX_ITERATIONS'],
    ['maxResponseBytes', 'PLAITA_MAX_RESPONSE_BYTES'],
    ['maxEvaluationMs', 'PLAITA_EXPRESSION_TIMEOUT_MS'],
    ['maxDepth', 'PLAITA_MAX_DEPTH'],
  ];
  for (const [field, name] of numbers) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw invalid(name, raw, 'a positive integer');
    (limits as Record<string, unknown>)[field] = value;
  }
  Object.assign(limits, codeLimitsFromEnv(env));
  const nested = env.PLAITA_NESTED_DATA_EXPRESSIONS?.trim();
  if (nested) {
    if (nested !== 'on' && nested !== 'off')
      throw invalid('PLAITA_NESTED_DATA_EXPRESSIONS', nested, 'on | off');
    limits.nestedDataExpressions = nested === 'on';
  }
  const secrets = secretEnvFromEnv(env);
  if (secrets !== undefined) limits.exposeSecretEnv = secrets;
  return limits;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `PLAITA_EXPOSE_SECRET_ENV=NAME,NAME`: secret-looking names (flow/secret-env.ts) a flow's
 * `exposeEnv` may read after all. Exact names only, no patterns: each one is a decision.
 */
function secretEnvFromEnv(env: NodeJS.ProcessEnv): string[] | undefined {
  const raw = env.PLAITA_EXPOSE_SECRET_ENV?.trim();
  if (!raw) return undefined;
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => !VARIABLE_NAME.test(name)))
    throw invalid('PLAITA_EXPOSE_SECRET_ENV', raw, 'a comma-separated list of variable names');
  return [...new Set(names)];
}

function invalid(name: string, value: string, expected: string): CliError {
  return new CliError(
    `${name}=${JSON.stringify(value)} is invalid: expected ${expected}`,
    EXIT.usage,
  );
}

/**
 * The code node's limits (docs/code-node.md): which backends run code (`quickjs` by default;
 * `python` only when listed), and the per-run CPU time, memory, output size, and the
 * subprocess's wall clock and address space.
 */
function codeLimitsFromEnv(env: NodeJS.ProcessEnv): Partial<RuntimeLimits> {
  const limits: Partial<RuntimeLimits> = {};
  const backends = env.PLAITA_CODE_BACKENDS?.trim();
  if (backends !== undefined && backends !== '') {
    const names = backends.split(',').map((s) => s.trim().toLowerCase());
    const known: readonly string[] = CODE_BACKENDS;
    const unknown = names.filter((n) => n !== 'none' && !known.includes(n));
    if (unknown.length > 0)
      throw invalid(
        'PLAITA_CODE_BACKENDS',
        backends,
        `a list of ${CODE_BACKENDS.join(', ')} (or none)`,
      );
    limits.codeBackends = [...new Set(names.filter((n): n is CodeBackend => known.includes(n)))];
  }
  const scaled: Array<[keyof RuntimeLimits, string, number]> = [
    ['codeTimeoutMs', 'PLAITA_CODE_TIMEOUT_MS', 1],
    ['codeMemoryBytes', 'PLAITA_CODE_MEMORY_MB', 1024 * 1024],
    ['codeOutputBytes', 'PLAITA_CODE_OUTPUT_BYTES', 1],
    ['subprocessTimeoutMs', 'PLAITA_SUBPROCESS_TIMEOUT_MS', 1],
    ['subprocessMemoryBytes', 'PLAITA_SUBPROCESS_MEMORY_MB', 1024 * 1024],
  ];
  const threads = env.PLAITA_CODE_THREADS?.trim();
  if (threads) {
    const value = Number(threads);
    if (!Number.isInteger(value) || value < 0 || value > 64)
      throw invalid('PLAITA_CODE_THREADS', threads, 'an integer from 0 to 64');
    limits.codeThreads = value;
  }
  for (const [field, name, unit] of scaled) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw invalid(name, raw, 'a positive integer');
    (limits as Record<string, unknown>)[field] = value * unit;
  }
  return limits;
}
