// The published package, as a user installs it: packs this repository (dist/ as built — run
// `npm run build` first, as `npm test` does), installs the tarball into an empty project with
// `npm install --omit=peer` (offline from the npm cache; --prefer-offline when the cache lacks
// something), and checks there that nothing was compiled or left out and that `runFlow` runs.
// Prints the timings; exits non-zero on the first failed check. `--keep` keeps the temp folder.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PEERS = ['better-sqlite3', 'pg', 'ioredis', 'prom-client'];
const npmCli = process.env.npm_execpath;
const keep = process.argv.includes('--keep');

// Run under `npm run`, the environment names this repository as the project: the empty project
// must not inherit that.
const outsideEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => name !== 'npm_config_local_prefix' && !name.startsWith('npm_package_'),
  ),
);

function npm(args, cwd) {
  const command = npmCli ? process.execPath : 'npm';
  const argv = npmCli ? [npmCli, ...args] : args;
  return spawnSync(command, argv, {
    cwd,
    encoding: 'utf8',
    shell: !npmCli && process.platform === 'win32',
    env: { ...outsideEnv, npm_config_audit: 'false', npm_config_fund: 'false' },
  });
}

/** A failed check: reported, and the exit code set, after the temp folder is removed. */
function fail(message, output) {
  throw Object.assign(new Error(message), { output });
}

function timed(label, work) {
  const started = performance.now();
  const result = work();
  console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** Every package folder under `modules` (scoped ones too), nested node_modules included. */
function installedPackages(modules) {
  if (!existsSync(modules)) return [];
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(join(modules, name)).map((scoped) => join(modules, name, scoped))
        : [join(modules, name)],
    )
    .flatMap((folder) => [folder, ...installedPackages(join(folder, 'node_modules'))]);
}

function needsBuild(folder) {
  if (existsSync(join(folder, 'binding.gyp'))) return true;
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const { preinstall, install, postinstall } = manifest.scripts ?? {};
  return Boolean(manifest.gypfile || preinstall || install || postinstall);
}

if (!existsSync(join(ROOT, 'dist/index.js'))) {
  console.error('check-pack: dist/ is not built: run `npm run build` first');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'plaita-pack-'));
const total = performance.now();
try {
  // --ignore-scripts: pack dist/ as built, without `prepare` building it a second time.
  const packed = timed('npm pack', () =>
    npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT),
  );
  if (packed.status !== 0) fail('npm pack failed', packed.stderr);
  const [{ filename, files, size }] = JSON.parse(packed.stdout);
  const paths = files.map((file) => file.path);
  console.log(`tarball: ${filename}, ${files.length} files, ${(size / 1024).toFixed(0)} kB`);
  for (const required of ['dist/index.js', 'dist/cli.js', 'dist/sqlite.js', 'examples/echo.json'])
    if (!paths.includes(required)) fail(`the tarball lacks ${required}`);
  const stray = paths.filter((path) => !/^(dist|schema|examples)\/|^[^/]+$/.test(path));
  if (stray.length > 0) fail(`the tarball holds files outside dist/schema/examples: ${stray}`);

  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'plaita-pack-check', private: true, type: 'module' }),
  );
  const install = (mode) =>
    npm(['install', join(dir, filename), '--omit=peer', `--${mode}`, '--no-package-lock'], project);
  let installed = timed('npm install --omit=peer --offline', () => install('offline'));
  if (installed.status !== 0 && /ENOTCACHED/.test(installed.stderr)) {
    const missing = /ENOTCACHED[^\n]*\n?[^\n]*/.exec(installed.stderr)?.[0] ?? '';
    console.log(
      `the npm cache lacks something (${missing.trim()}): retrying with --prefer-offline`,
    );
    installed = timed('npm install --omit=peer --prefer-offline', () => install('prefer-offline'));
  }
  if (installed.status !== 0) fail('installing the tarball failed', installed.stderr);

  const modules = readdirSync(join(project, 'node_modules'));
  const present = PEERS.filter((peer) => modules.includes(peer));
  if (present.length > 0) fail(`--omit=peer still installed ${present.join(', ')}`);
  // Nothing to compile: no installed package has a binding.gyp or an install-time script.
  const compiling = installedPackages(join(project, 'node_modules')).filter(needsBuild);
  if (compiling.length > 0) fail(`packages that compile on install: ${compiling.join(', ')}`);
  console.log(`installed: ${modules.length} top-level packages, none with a native build`);

  const script = `
    import { loadFlowFile, runFlow } from 'plaita';
    const flow = await loadFlowFile('node_modules/plaita/examples/echo.json');
    const result = await runFlow(flow, { name: 'Ada' });
    const sqlite = await import('plaita/sqlite').then(() => 'imported', (error) => error.code);
    console.log(JSON.stringify({ result, sqlite }));`;
  const run = timed('import plaita + runFlow', () =>
    spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
      encoding: 'utf8',
    }),
  );
  if (run.status !== 0) fail('runFlow in the installed package failed', run.stderr);
  const seen = JSON.parse(run.stdout.trim().split('\n').at(-1));
  if (seen.result !== 'Ada') fail(`runFlow returned ${JSON.stringify(seen.result)}, not "Ada"`);
  if (seen.sqlite !== 'peer_dependency_missing')
    fail(`import('plaita/sqlite') without better-sqlite3 gave ${seen.sqlite}`);
  console.log(
    `ok: runFlow printed ${seen.result}; plaita/sqlite without better-sqlite3 → ${seen.sqlite}; ` +
      `${((performance.now() - total) / 1000).toFixed(1)} s in all`,
  );
} catch (error) {
  console.error(`check-pack: ${error.message}`);
  if (error.output) console.error(error.output);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
