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
 * Compiles `source` without running it (QuickJS `compileOnly`), so a syntax error is a
 * definition error at load, with line and column. `undefined` when it cannot tell yet: the
 * WebAssembly module is still loading (`loadQuickJS()` first for a guaranteed check); the
 * error then surfaces on the first run as a `code_error`.
 */
export function checkJavaScriptSyntax(source: string): SyntaxProblem | null | undefined {
  const module = quickJSNow();
  if (module === undefined) return undefined;
  const checker = checkerOf(module);
  const isModule = isModuleSource(source);
  const result = checker.context.evalCode(source, isModule ? 'code.mjs' : 'code.js', {
    type: isModule ? 'module' : 'global',
    compileOnly: true,
  });
  try {
    if (!result.error) return null;
    const dumped = checker.context.dump(result.error) as
      { name?: unknown; message?: unknown; stack?: unknown } | undefined;
    // A compiled module with named exports comes back as an "error" holding no exception
    // (quickjs-emscripten 0.32 does not expect a module value): it compiled.
    if (typeof dumped !== 'object' || dumped === null) return null;
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
