import type { RuntimeLimits } from '../flow/runtime-limits.js';
import { CliError, EXIT } from './exit-codes.js';

/**
 * The operator's limits (flow/runtime-limits.ts) from PLAITA_* variables. Commands that run
 * flows for other people (`worker`, `serve`) pass stricter defaults than a terminal `run`.
 * A value that does not parse is exit 2 naming the variable, never silently ignored.
 */
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
  const nested = env.PLAITA_NESTED_DATA_EXPRESSIONS?.trim();
  if (nested) {
    if (nested !== 'on' && nested !== 'off')
      throw invalid('PLAITA_NESTED_DATA_EXPRESSIONS', nested, 'on | off');
    limits.nestedDataExpressions = nested === 'on';
  }
  return limits;
}

function invalid(name: string, value: string, expected: string): CliError {
  return new CliError(
    `${name}=${JSON.stringify(value)} is invalid: expected ${expected}`,
    EXIT.usage,
  );
}
