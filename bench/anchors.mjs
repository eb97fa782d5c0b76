// Runs a peer benchmark from ../shared/anchors-bench (installing it once with npm ci) and returns
// its JSON line (runAnchor: the last one; runAnchorLines: every one, for floor-redis.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ANCHORS_DIR =
  process.env.PLAITA_ANCHORS_DIR ??
  resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/anchors-bench');

export function runAnchorLines(script, args, { timeoutMs = 600_000, env = {} } = {}) {
  if (!existsSync(join(ANCHORS_DIR, script)))
    return { error: `anchor ${script} not found in ${ANCHORS_DIR}` };
  if (!existsSync(join(ANCHORS_DIR, 'node_modules'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ANCHORS_DIR, stdio: 'inherit' });
  }
  try {
    const out = execFileSync(process.execPath, [script, ...args.map(String)], {
      cwd: ANCHORS_DIR,
      timeout: timeoutMs,
      encoding: 'utf8',
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    return lines.length ? { lines } : { error: 'anchor printed no JSON line' };
  } catch (error) {
    return { error: String(error.message ?? error) };
  }
}

export function runAnchor(script, args, options) {
  const result = runAnchorLines(script, args, options);
  return result.lines ? result.lines.at(-1) : result;
}

export function ratio(ours, theirs) {
  return Number.isFinite(ours) && Number.isFinite(theirs) && theirs > 0
    ? +(ours / theirs).toFixed(1)
    : null;
}
