/**
 * The linear memory of one QuickJS WebAssembly instance: the heap every sandbox made from that
 * instance allocates in. It is metered where it grows, because QuickJS's own memory limit does
 * not see most of it: this build cannot read the size of a block (`malloc_usable_size`), so
 * QuickJS counts 8 bytes per allocation and refuses only a single request larger than its
 * limit. Two hundred 8 MB typed arrays pass a 32 MiB limit that way.
 *
 * Emscripten's allocator grows the memory through `grow` (its `emscripten_resize_heap` calls
 * it, and treats a throw as "no more memory": `malloc` returns NULL and QuickJS throws its
 * out-of-memory error). While a run holds the gate, growth past its ceiling is refused and the
 * run is told, so it ends `code_memory` even if the code catches the error.
 *
 * WebAssembly memory never shrinks: a heap that grew too far is given back by dropping the
 * whole instance (javascript-sandboxes.ts), never by freeing inside it.
 */
/** The part of `WebAssembly.Memory` used here (the project's type libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const WasmMemory = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (pages: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly.Memory;

const PAGE_BYTES = 65_536;

export class WasmHeap {
  readonly memory: WasmMemory;
  #ceiling = Infinity;
  #onRefused: (() => void) | undefined;
  /**
   * True once the instance must not outlive the current run: its owner drops it afterwards,
   * and nothing in it is freed before (sandboxes skip their dispose). Set when a growth was
   * refused (some glue code of quickjs-emscripten does not check `malloc` for NULL), and by a
   * sandbox that knows its runtime cannot be freed cleanly any more.
   */
  retired = false;

  constructor() {
    // Emscripten's own defaults for this build: 16 MiB to start, 2 GiB at most.
    const memory = new WasmMemory({ initial: 256, maximum: 32_768 });
    const grow = memory.grow.bind(memory);
    // An own property, not a subclass: the instance imports this very object, and the glue
    // calls `grow` on it by name.
    memory.grow = (pages: number): number => {
      if (memory.buffer.byteLength + pages * PAGE_BYTES > this.#ceiling) {
        this.retired = true;
        this.#onRefused?.();
        throw new RangeError('the sandbox heap is at its ceiling');
      }
      return grow(pages);
    };
    this.memory = memory;
  }

  /** The heap's size now, bytes (O(1): the memory's buffer length). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Refuses growth past `ceilingBytes`, calling `onRefused` at each refusal, until `open()`. */
  close(ceilingBytes: number, onRefused: () => void): void {
    this.#ceiling = ceilingBytes;
    this.#onRefused = onRefused;
  }

  open(): void {
    this.#ceiling = Infinity;
    this.#onRefused = undefined;
  }
}
