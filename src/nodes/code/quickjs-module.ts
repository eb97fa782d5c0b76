import variant from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { WasmHeap } from './wasm-heap.js';

/**
 * The QuickJS WebAssembly module, loaded once per process on first need. Loading is
 * asynchronous (~20-40 ms, ~8 MB), so it is not done at import: a host that never runs a code
 * node never pays for it. `loadQuickJS()` lets a host (the CLI, a test) load it up front so
 * that flows loaded afterwards get their syntax checked at load.
 *
 * Each load gets a heap of its own (wasm-heap.ts), which the sandboxes meter. A module is
 * discarded when its WebAssembly instance trapped (a host stack overflow in the middle of a
 * call: its memory may be inconsistent) or when its heap grew past what it may keep (its
 * memory cannot shrink): every sandbox made from it is dropped, and the next run loads a fresh
 * instance.
 */
// The package's CommonJS typings describe its namespace; at run time (ESM) the default export
// is the variant itself. The loader accepts either form.
const VARIANT = variant as unknown as QuickJSSyncVariant;

let current: QuickJSWASMModule | undefined;
let loading: Promise<QuickJSWASMModule> | undefined;
let generation = 0;
const heaps = new WeakMap<QuickJSWASMModule, WasmHeap>();

/** The module if it is ready now, else undefined (and loading starts). */
export function quickJSNow(): QuickJSWASMModule | undefined {
  if (current === undefined) void loadQuickJS().catch(() => undefined);
  return current;
}

/** Loads the module (once); resolves when sandboxes can be made synchronously. */
export function loadQuickJS(): Promise<QuickJSWASMModule> {
  if (loading === undefined) {
    const mine = ++generation;
    const heap = new WasmHeap();
    loading = newQuickJSWASMModuleFromVariant(
      newVariant(VARIANT, { wasmMemory: heap.memory }),
    ).then(
      (module) => {
        heaps.set(module, heap);
        if (mine === generation) current = module;
        return module;
      },
      (error: unknown) => {
        // A failed load (no WebAssembly support?) is retried by the next caller.
        if (mine === generation) loading = undefined;
        throw error;
      },
    );
  }
  return loading;
}

/** The heap of a module this file loaded. */
export function heapOf(module: QuickJSWASMModule): WasmHeap {
  const heap = heaps.get(module);
  if (heap === undefined) throw new Error('not a QuickJS module loaded by loadQuickJS()');
  return heap;
}

/** Forgets `module`; sandboxes holding it must be dropped by their owners. */
export function discardQuickJS(module: QuickJSWASMModule): void {
  if (current !== module) return;
  current = undefined;
  loading = undefined;
  generation++;
}
