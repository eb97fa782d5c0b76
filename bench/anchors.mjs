// Runs a peer benchmark from ../shared/anchors-bench (installing it once with npm ci) and returns its JSON line.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ANCHORS_DIR =
  process.env.PLAITA_ANCHORS_DIR ??
  resolve(dirname(fileURLToPath(import.meta.url)), '../../shared/anchors-bench');

export function runAnchor(script, args, { timeoutMs = 600_000, env = {} } = {}) {
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
    const line = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop();
    return line ? JSON.parse(line) : { error: 'anchor printed no JSON line' };
  } catch (error) {
    return { error: String(error.message ?? error) };
  }
}

export function ratio(ours, theirs) {
  return Number.isFinite(ours) && Number.isFinite(theirs) && theirs > 0
    ? +(ours / theirs).toFixed(1)
    : null;
}
