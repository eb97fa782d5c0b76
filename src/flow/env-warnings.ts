/** docs/flow-format.md §1.1 (6) and §5.4: `$ENV` references nothing can satisfy, and secret-looking names exposed. */

/** Exported for static analysis (flow/analysis), which reports the same names as issues. */
export const SECRET_LOOKING = /SECRET|TOKEN|PASSWORD|API_KEY|PRIVATE_KEY|CREDENTIAL/i;
const ENV_REFERENCE = /\$ENV\.([A-Za-z0-9_$-]+)/g;

export function envWarnings(
  document: Record<string, unknown>,
  exposeEnv: readonly string[],
): string[] {
  const warnings: string[] = [];
  for (const name of exposeEnv) {
    if (SECRET_LOOKING.test(name))
      warnings.push(
        `audit: exposeEnv lists "${name}", which looks like a secret; it is visible to every expression and stored in checkpoints`,
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
