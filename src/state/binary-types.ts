/**
 * Byte-holding classes the codec stores as base64: `Buffer`, every typed array, `DataView`
 * and `ArrayBuffer`. A view is stored with exactly its own bytes (not the rest of the buffer
 * it may share) and decodes onto a fresh buffer of its own. Multi-byte elements are stored in
 * the platform's byte order, which is little-endian on every platform Node ships for.
 */

export interface BinaryType {
  /** The tag name, also the class name: `Uint8Array`, `Buffer`, `ArrayBuffer`... */
  readonly tag: string;
  /** Instances are recognised by their exact prototype, so subclasses are not taken. */
  readonly prototype: object;
  encode(value: object): string;
  /** `undefined` when `base64` is not valid base64 or does not fit the element size. */
  decode(base64: string): object | undefined;
}

type ViewConstructor = (new (buffer: ArrayBuffer) => ArrayBufferView) & {
  readonly name: string;
  readonly prototype: object;
  readonly BYTES_PER_ELEMENT?: number;
};

const VIEW_CONSTRUCTORS: readonly ViewConstructor[] = [
  Uint8Array,
  Int8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  DataView,
];

function viewType(ctor: ViewConstructor): BinaryType {
  const elementBytes = ctor.BYTES_PER_ELEMENT ?? 1;
  return {
    tag: ctor.name,
    prototype: ctor.prototype,
    encode: (value) => viewToBase64(value as ArrayBufferView),
    decode: (base64) => {
      const bytes = base64ToOwnBytes(base64);
      return bytes && bytes.byteLength % elementBytes === 0 ? new ctor(bytes.buffer) : undefined;
    },
  };
}

const BUFFER_TYPE: BinaryType = {
  tag: 'Buffer',
  prototype: Buffer.prototype as object,
  encode: (value) => viewToBase64(value as Buffer),
  // Onto its own memory: a pooled Buffer would expose other values' bytes through `.buffer`.
  decode: (base64) => {
    const bytes = base64ToOwnBytes(base64);
    return bytes && Buffer.from(bytes.buffer);
  },
};

const ARRAY_BUFFER_TYPE: BinaryType = {
  tag: 'ArrayBuffer',
  prototype: ArrayBuffer.prototype,
  encode: (value) => Buffer.from(value as ArrayBuffer).toString('base64'),
  decode: (base64) => base64ToOwnBytes(base64)?.buffer,
};

export const BINARY_TYPES: readonly BinaryType[] = [
  BUFFER_TYPE,
  ARRAY_BUFFER_TYPE,
  ...VIEW_CONSTRUCTORS.map(viewType),
];

function viewToBase64(view: ArrayBufferView): string {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64');
}

// Buffer.from(..., 'base64') skips characters it does not know; a corrupt record must not
// decode to different bytes silently, so the text is checked first.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text);
}

/** Decodes onto a fresh, unshared ArrayBuffer (Buffer.from may hand out a slice of its pool). */
function base64ToOwnBytes(base64: string): Uint8Array<ArrayBuffer> | undefined {
  if (!isBase64(base64)) return undefined;
  const decoded = Buffer.from(base64, 'base64');
  const bytes = new Uint8Array(decoded.byteLength);
  bytes.set(decoded);
  return bytes;
}
