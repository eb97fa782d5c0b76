import type { QuickJSContext, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { quickJSNow } from './quickjs-module.js';
import { isModuleSource, SANDBOX_STACK_BYTES } from './quickjs-sandbox.js';

/** A syntax error found at load, with its 1-based position when QuickJS gave one. */
export interface SyntaxProblem {
  message: string;
  line: number | null;
  column: number | null;
}

const CHECKER_MEMORY_BYTES = 64 * 1024 * 1024;

interface Checker {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
}

const checkers = new WeakMap<QuickJSWASMModule, Checker>();

/**
 * An import appended to a module being checked, which no loader resolves. A module cannot be
 * compiled with `compileOnly`: quickjs-emscripten then answers from a pointer it never set
 * (`QTS_Eval`'s `module`), and what it answers, and whether freeing that aborts, depends on
 * what the WebAssembly stack held before. A module is compiled and linked instead: linking
 * stops at the first import it cannot load, before any of the code runs, so a syntax error or
 * the code's own import is reported first, and this one means the module compiled.
 */
const LINK_STOP = 'plaita:syntax-check';

/**
 * Compiles `source` without running it (QuickJS `compileOnly`; a module up to its linking), so
 * a syntax error is a definition error at load, with line and column. `undefined` when it cannot tell yet: the
 * WebAssembly module is still loading (`loadQuickJS()` first for a guaranteed check); the
 * error then surfaces on the first run as a `code_error`.
 */
export function checkJavaScriptSyntax(source: string): SyntaxProblem | null | undefined {
  const module = quickJSNow();
  if (module === undefined) return undefined;
  const checker = checkerOf(module);
  const isModule = isModuleSource(source);
  const result = isModule
    ? checker.context.evalCode(`${source}\n;import '${LINK_STOP}';`, 'code.mjs', { type: 'module' })
    : checker.context.evalCode(source, 'code.js', { type: 'global', compileOnly: true });
  try {
    if (!result.error) return null;
    const dumped = checker.context.dump(result.error) as
      { name?: unknown; message?: unknown; stack?: unknown } | undefined;
    if (typeof dumped !== 'object' || dumped === null) return null;
    if (dumped.message === `could not load module '${LINK_STOP}'`) return null;
    const where = /code\.m?js:(\d+):(\d+)/.exec(
      typeof dumped.stack === 'string' ? dumped.stack : '',
    );
    return {
      message: `${typeof dumped.name === 'string' ? dumped.name : 'SyntaxError'}: ${String(dumped.message)}`,
      line: where ? Number(where[1]) : null,
      column: where ? Number(where[2]) : null,
    };
  } finally {
    (result.error ?? result.value).dispose();
    // A compiled module stays registered in its context: start afresh rather than pile them up.
    if (isModule) retire(module, checker);
  }
}

function checkerOf(module: QuickJSWASMModule): Checker {
  let checker = checkers.get(module);
  if (checker === undefined) {
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(CHECKER_MEMORY_BYTES);
    runtime.setMaxStackSize(SANDBOX_STACK_BYTES);
    checker = { runtime, context: runtime.newContext() };
    checkers.set(module, checker);
  }
  return checker;
}

function retire(module: QuickJSWASMModule, checker: Checker): void {
  checkers.delete(module);
  checker.context.dispose();
  checker.runtime.dispose();
}
