import { CliError, EXIT } from './exit-codes.js';

const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * The environment a `worker` or `serve` hands to the flows it runs, whose `exposeEnv` names are
 * read from it (docs/limits.md). Those flows may be anybody's (a tenant's, sent through the API),
 * so they never see the runtime's own settings and credentials: by default every variable but
 * the `PLAITA_*` ones (store and Redis URLs, keys). `PLAITA_FLOW_ENV` replaces that with an
 * allow-list of names and `PREFIX*` patterns (`APP_TOKEN,PARTNER_*`), or `none`. A terminal
 * `plaita run` keeps the whole environment: its flows are the user's own.
 */
export function flowEnvFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const raw = env.PLAITA_FLOW_ENV?.trim();
  const allowed = raw ? allowList(raw) : null;
  const visible: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (allowed ? allowed(name) : !name.startsWith('PLAITA_')) visible[name] = value;
  }
  return visible;
}

function allowList(raw: string): (name: string) => boolean {
  if (raw === 'none') return () => false;
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
