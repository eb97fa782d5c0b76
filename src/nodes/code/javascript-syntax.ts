import type { QuickJSContext, QuickJSRuntime } from 'quickjs-emscripten-core';
import type { QuickJSInstance } from './quickjs-loader.js';
import { isModuleSource, SANDBOX_STACK_BYTES } from './quickjs-sandbox.js';

/** A syntax error found at load, with its 1-based position when QuickJS gave one. */
export interface SyntaxProblem {
  message: string;
  line: number | null;
  column: number | null;
}

const CHECKER_MEMORY_BYTES = 64 * 1024 * 1024;

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
 * Compiles code without running it (QuickJS `compileOnly`; a module up to its linking), so a
 * syntax error is a definition error at load, with line and column. One runtime and context in
 * `instance`, made on first need and kept for the next check.
 */
export class JavaScriptSyntaxChecker {
  #runtime: QuickJSRuntime | undefined;
  #context: QuickJSContext | undefined;

  constructor(readonly instance: QuickJSInstance) {}

  check(source: string): SyntaxProblem | null {
    const context = this.#contextNow();
    const isModule = isModuleSource(source);
    const result = isModule
      ? context.evalCode(`${source}\n;import '${LINK_STOP}';`, 'code.mjs', { type: 'module' })
      : context.evalCode(source, 'code.js', { type: 'global', compileOnly: true });
    try {
      if (!result.error) return null;
      const dumped = context.dump(result.error) as
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
      if (isModule) this.dispose();
    }
  }

  /** Frees the runtime (a later check makes another). */
  dispose(): void {
    this.#context?.dispose();
    this.#runtime?.dispose();
    this.#context = undefined;
    this.#runtime = undefined;
  }

  #contextNow(): QuickJSContext {
    if (this.#context === undefined) {
      const runtime = this.instance.module.newRuntime();
      runtime.setMemoryLimit(CHECKER_MEMORY_BYTES);
      runtime.setMaxStackSize(SANDBOX_STACK_BYTES);
      this.#runtime = runtime;
      this.#context = runtime.newContext();
    }
    return this.#context;
  }
}
