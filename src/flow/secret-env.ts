import { getOwn, setOwn } from '../util/own-record.js';

/**
 * docs/flow-format.md §5.4: which `exposeEnv` names look like secrets. Two rules, on purpose:
 *
 * - **Withheld**: a name starting with one of the original's sensitive prefixes (its
 *   `_SENSITIVE_ENV_PREFIXES`, compared on the upper-cased name) never reaches `$ENV`, even
 *   listed, unless the operator allows that exact name (`RuntimeLimits.exposeSecretEnv`,
 *   `PLAITA_EXPOSE_SECRET_ENV`). A flow document alone cannot: it may be anybody's.
 * - **Audited**: a name holding such a word elsewhere (`OPENAI_API_KEY`, `APP_TOKEN`) is exposed
 *   as the original exposes it, with an audit warning: dropping it would break flows that run
 *   there unchanged.
 */
const SENSITIVE_PREFIXES = [
  'AWS_SECRET',
  'AWS_SESSION',
  'DATABASE_',
  'DB_PASSWORD',
  'SECRET',
  'TOKEN',
  'API_KEY',
  'PRIVATE_KEY',
  'CREDENTIAL',
  'PASSWORD',
  'PASS_',
  'REDIS_PASSWORD',
] as const;

const SECRET_WORD = /SECRET|TOKEN|PASSWORD|API_KEY|PRIVATE_KEY|CREDENTIAL/i;

/** The original's rule: `$ENV` leaves the name out, whatever `exposeEnv` says. */
export function hasSensitivePrefix(name: string): boolean {
  const upper = name.toUpperCase();
  return SENSITIVE_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

export type SecretEnvStatus = 'withheld' | 'allowed' | 'audited';

/**
 * What happens to a listed name: `withheld` (left out of `$ENV`), `allowed` (a withheld name
 * the operator lets through), `audited` (exposed, but it looks like a secret), or null.
 */
export function secretEnvStatus(
  name: string,
  operatorAllowed: readonly string[],
): SecretEnvStatus | null {
  if (hasSensitivePrefix(name)) return operatorAllowed.includes(name) ? 'allowed' : 'withheld';
  return SECRET_WORD.test(name) ? 'audited' : null;
}

/** The variables a flow's `$ENV` holds: the listed names that exist, secrets withheld. */
export function exposedEnv(
  exposeEnv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  operatorAllowed: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of exposeEnv) {
    const value = getOwn(env, name);
    if (value === undefined) continue;
    if (hasSensitivePrefix(name) && !operatorAllowed.includes(name)) continue;
    setOwn(out, name, value);
  }
  return out;
}
