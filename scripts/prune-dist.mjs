// The build writes dist/ over the last one: a module moved or deleted in src/ would leave its old
// output behind, importable and packed into the tarball. This removes every file of dist/ whose
// source (`x.ts` for x.js / x.d.ts / their maps; the same path for .lua, .sql and a .js asset that
// scripts/copy-assets.mjs copied) is gone.
import { existsSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = 'src';
const OUT = 'dist';
// The console is built by Vite from console/, not compiled from src/: never pruned here.
const KEEP = new Set([join(OUT, 'console')]);
const COMPILED = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

/** Whether `file` of dist/ was compiled or copied from something src/ still has. */
function hasSource(file) {
  const path = join(SRC, relative(OUT, file));
  return existsSync(path) || (COMPILED.test(path) && existsSync(path.replace(COMPILED, '.ts')));
}

function prune(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (KEEP.has(path)) continue;
    if (statSync(path).isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (!hasSource(path)) {
      rmSync(path);
    }
  }
}

if (existsSync(OUT)) prune(OUT);
