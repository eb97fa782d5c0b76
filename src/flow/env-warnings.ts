import { secretEnvStatus } from './secret-env.js';

/** docs/flow-format.md §1.1 (6) and §5.4: `$ENV` references nothing can satisfy, and secret-looking names listed. */

const ENV_REFERENCE = /\$ENV\.([A-Za-z0-9_$-]+)/g;

export function envWarnings(
  document: Record<string, unknown>,
  exposeEnv: readonly string[],
  operatorAllowed: readonly string[],
): string[] {
  const warnings: string[] = [];
  for (const name of exposeEnv) {
    const status = secretEnvStatus(name, operatorAllowed);
    if (status === 'withheld')
      warnings.push(
        `audit: exposeEnv lists "${name}", which looks like a secret: $ENV leaves it out (it reads null) unless the operator allows the name (PLAITA_EXPOSE_SECRET_ENV)`,
      );
    else if (status !== null)
      warnings.push(
        `audit: exposeEnv lists "${name}", which looks like a secret; ${status === 'allowed' ? 'the operator allows it, so ' : ''}it is visible to every expression and stored in checkpoints`,
      );
  }
  if (exposeEnv.length === 0) {
    const text = JSON.stringify(document.nodes ?? []);
    const names = new Set([...text.matchAll(ENV_REFERENCE)].map((m) => m[1]));
    for (const name of names)
      warnings.push(`$ENV.${name} is referenced but exposeEnv is empty: it will read null`);
  }
  return warnings;
}
