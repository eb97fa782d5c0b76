// npm run bench: every benchmark beside its peer, one after another, in one run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const benches = [
  'engine.mjs',
  'expression.mjs',
  'codec.mjs',
  'store.mjs',
  'queue.mjs',
  'worker.mjs',
];
let failed = 0;
for (const bench of benches) {
  const path = new URL(`./${bench}`, import.meta.url);
  if (!existsSync(path)) continue;
  console.log(`\n=== ${bench} ===`);
  const run = spawnSync(process.execPath, ['--expose-gc', path.pathname], {
    stdio: 'inherit',
    env: { ...process.env, PLAITA_LOG_LEVEL: process.env.PLAITA_LOG_LEVEL ?? 'silent' },
  });
  if (run.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
