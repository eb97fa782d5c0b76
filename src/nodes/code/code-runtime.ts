import { CodeThreads } from './code-threads.js';
import { JavaScriptSandboxes } from './javascript-sandboxes.js';
import type { QuickJSInstance } from './quickjs-loader.js';

/**
 * What code nodes run on: the JavaScript sandboxes of the calling thread (a QuickJS WebAssembly
 * instance and its warm sandboxes) and the code threads. A code node type holds one
 * (`createCodeNode`); everything in it is made on first need, and `close()` gives it all back.
 */
export class CodeRuntime {
  readonly sandboxes = new JavaScriptSandboxes();
  readonly threads = new CodeThreads();

  /** Frees every sandbox and ends every code thread; a later run starts afresh. */
  async close(): Promise<void> {
    this.sandboxes.dispose();
    await this.threads.close();
  }
}

/**
 * The one process-wide state of src/nodes/code, on purpose: the runtime of the built-in `code`
 * node type (`codeNode`, and so of every registry built from BUILTIN_NODE_TYPES). A process
 * keeps one QuickJS instance (a 16 MiB heap to start, up to PLAITA_CODE_HEAP_MB kept) and one set
 * of code threads however many engines, registries and workers it runs, as it keeps one CPU:
 * an instance per engine would multiply that memory and the warm-sandbox ceilings with it.
 * Isolation within it is by tenant (SandboxPool). A host or test that wants its own makes a
 * CodeRuntime and registers `createCodeNode(runtime)` in place of `codeNode`.
 */
export const sharedCodeRuntime = new CodeRuntime();

/**
 * Loads the shared runtime's QuickJS instance up front (the CLI does, before loading flows), so
 * that the built-in code node checks JavaScript syntax at load.
 */
export function loadQuickJS(): Promise<QuickJSInstance> {
  return sharedCodeRuntime.sandboxes.load();
}
