// `prepare`: npm runs it after `npm install` in the repository, which builds dist/ (docs/public-surface.md).
// npm runs it again when the first `npx plaita …` in the repository installs this package into
// npx's cache as a link to the repository (npm_command=exec): that second build would redo the
// first for nothing (about 12 s), so it is skipped when a build by `prepare` has completed here
// (the stamp below; a failed build leaves none). Installs of the packed tarball never run it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';

const stampDir = new URL('../node_modules/.cache/plaita/', import.meta.url);
const stamp = new URL('prepared', stampDir);
if (process.env.npm_command === 'exec' && existsSync(stamp)) process.exit(0);

const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
if (build.status === 0) {
  mkdirSync(stampDir, { recursive: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
process.exit(build.status ?? 1);
