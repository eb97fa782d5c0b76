// tsc copies only .ts output: the Lua scripts, SQL migrations and JavaScript (the code sandbox's
// prelude, src/nodes/code/sandbox/prelude.js, run by QuickJS rather than imported) that sit
// beside their modules must reach dist/ at the same relative paths: the modules read them at
// run time.
import { cpSync, readdirSync, statSync, mkdirSync } from 'node:fs';
import { join, dirname, relative, extname } from 'node:path';

const ASSET_EXTENSIONS = new Set(['.lua', '.sql', '.js']);
const SRC = 'src';
const OUT = 'dist';

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (ASSET_EXTENSIONS.has(extname(name))) {
      const target = join(OUT, relative(SRC, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}
walk(SRC);
