/**
 * Where a value sits inside a stored state, rendered for error messages:
 * `$NODE.fetch-user.result.items[3]`, `$.cache<map key "k">`, `$.tags<set item #0>`.
 *
 * The codec records one segment per container it has entered (a push and a pop per object,
 * nothing per leaf) and renders the path only when it throws, so tracking costs nearly nothing
 * on the success path.
 */

/** A step that is not a plain property name or array index. */
export class SpecialSegment {
  constructor(
    readonly kind: 'map-key' | 'map-value' | 'set-item' | 'symbol-key',
    readonly index: number,
    readonly key?: unknown,
  ) {}

  render(): string {
    switch (this.kind) {
      case 'map-key':
        return `<map entry #${this.index} key>`;
      case 'map-value':
        return isPrimitiveKey(this.key)
          ? `<map key ${describeKey(this.key)}>`
          : `<map entry #${this.index}>`;
      case 'set-item':
        return `<set item #${this.index}>`;
      case 'symbol-key':
        return `[${String(this.key)}]`;
    }
  }
}

/** A property name, an array index, or a special step (`null` marks the root itself). */
export type PathSegment = string | number | SpecialSegment | null;

// The expression language's name characters (docs/flow-format.md §5.3): node ids read as `$NODE.fetch-user`.
const NAME = /^[A-Za-z0-9_$-]+$/;

/** Renders `root` followed by `segments`; an empty root makes the first name bare (`$NODE.x`). */
export function renderPath(root: string, segments: readonly PathSegment[]): string {
  let path = root;
  for (const segment of segments) path += renderSegment(segment, path === '');
  return path === '' ? '(root)' : path;
}

function renderSegment(segment: PathSegment, first: boolean): string {
  if (segment === null) return '';
  if (typeof segment === 'number') return `[${segment}]`;
  if (typeof segment !== 'string') return segment.render();
  if (!NAME.test(segment)) return `[${JSON.stringify(segment)}]`;
  return first ? segment : `.${segment}`;
}

function isPrimitiveKey(key: unknown): boolean {
  return (
    key === null ||
    (typeof key !== 'object' && typeof key !== 'function' && typeof key !== 'symbol')
  );
}

function describeKey(key: unknown): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (typeof key === 'bigint') return `${key}n`;
  return String(key);
}
