import { CliError, EXIT } from './exit-codes.js';

const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * The environment a `worker` or `serve` hands to the flows it runs, whose `exposeEnv` names are
 * read from it (docs/limits.md). Those flows may be anybody's: any operator key of any tenant
 * can send one through the API, and `$ENV` values are stored in checkpoints the API returns. So
 * by default they see NONE of the host's variables (its cloud credentials, database URLs...);
 * `PLAITA_FLOW_ENV` allows names and `PREFIX*` patterns (`APP_TOKEN,PARTNER_*`), or `*` for
 * every variable. The runtime's own `PLAITA_*` settings are never visible. A terminal `plaita
 * run` keeps the whole environment: its flows are the user's own.
 */
export function flowEnvFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const raw = env.PLAITA_FLOW_ENV?.trim() || 'none';
  const allowed = allowList(raw);
  const visible: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.startsWith('PLAITA_')) continue;
    if (allowed(name)) visible[name] = value;
  }
  return visible;
}

/** What a starting worker or server says about the variables its flows can read. */
export function flowEnvNote(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env.PLAITA_FLOW_ENV?.trim();
  return raw
    ? `flows may read these host variables through exposeEnv: PLAITA_FLOW_ENV=${raw}`
    : 'flows read no host variable through exposeEnv (set PLAITA_FLOW_ENV=NAME,PREFIX* to allow some, or * for all)';
}

function allowList(raw: string): (name: string) => boolean {
  if (raw === 'none') return () => false;
  if (raw === '*') return () => true;
  const patterns = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const bad = patterns.find((p) => !PATTERN.test(p));
  if (bad !== undefined)
    throw new CliError(
      `PLAITA_FLOW_ENV=${JSON.stringify(raw)} is invalid: ${JSON.stringify(bad)} is not a variable name or a NAME* prefix (or use none)`,
      EXIT.usage,
    );
  const names = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (name) => names.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}
