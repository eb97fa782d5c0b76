import variant from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { WasmHeap } from './wasm-heap.js';

// The package's CommonJS typings describe its namespace; at run time (ESM) the default export
// is the variant itself. The loader accepts either form.
const VARIANT = variant as unknown as QuickJSSyncVariant;

/** A QuickJS WebAssembly instance, and the heap (wasm-heap.ts) its sandboxes allocate in. */
export interface QuickJSInstance {
  readonly module: QuickJSWASMModule;
  readonly heap: WasmHeap;
}

/**
 * The QuickJS WebAssembly instance of one owner (JavaScriptSandboxes), one at a time, loaded on
 * first need. Loading is asynchronous (~20-40 ms, ~8 MB), so it is not done at construction: a
 * host that never runs a code node never pays for it. `load()` lets a host (the CLI, a test)
 * load it up front so that flows loaded afterwards get their syntax checked at load.
 *
 * An instance is discarded when it trapped (a host stack overflow in the middle of a call: its
 * memory may be inconsistent) or when its heap grew past what it may keep (its memory cannot
 * shrink): its owner drops every sandbox made from it, and the next need loads a fresh one.
 */
export class QuickJSLoader {
  #current: QuickJSInstance | undefined;
  #loading: Promise<QuickJSInstance> | undefined;
  #generation = 0;

  /** The instance if it is ready now, else undefined (and nothing starts). */
  get current(): QuickJSInstance | undefined {
    return this.#current;
  }

  /** The instance if it is ready now, else undefined (and loading starts). */
  now(): QuickJSInstance | undefined {
    if (this.#current === undefined) void this.load().catch(() => undefined);
    return this.#current;
  }

  /** Loads the instance (once); resolves when sandboxes can be made synchronously. */
  load(): Promise<QuickJSInstance> {
    if (this.#loading === undefined) {
      const mine = ++this.#generation;
      const heap = new WasmHeap();
      this.#loading = newQuickJSWASMModuleFromVariant(
        newVariant(VARIANT, { wasmMemory: heap.memory }),
      ).then(
        (module) => {
          const instance = { module, heap };
          if (mine === this.#generation) this.#current = instance;
          return instance;
        },
        (error: unknown) => {
          // A failed load (no WebAssembly support?) is retried by the next caller.
          if (mine === this.#generation) this.#loading = undefined;
          throw error;
        },
      );
    }
    return this.#loading;
  }

  /** Forgets `instance`; sandboxes made from it must be dropped by their owners. */
  discard(instance: QuickJSInstance): void {
    if (this.#current === instance) this.reset();
  }

  /** Forgets the instance, and a load still under way; the next need loads a fresh one. */
  reset(): void {
    this.#current = undefined;
    this.#loading = undefined;
    this.#generation++;
  }
}
