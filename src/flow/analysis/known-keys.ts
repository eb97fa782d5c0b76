import { commonNodeShape, topLevelShape } from '../document-schema.js';
import type { NodeType } from '../node-type.js';

/** A zod raw shape, seen structurally: flow/ reads schemas, it does not build them. */
export type Shape = Readonly<Record<string, unknown>>;

interface SchemaLike {
  def?: { type?: unknown; innerType?: unknown; element?: unknown };
  shape?: unknown;
}

const WRAPPERS: ReadonlySet<unknown> = new Set(['optional', 'nullable', 'default', 'readonly']);

/**
 * The object shape a field's schema expects (through optional/nullable and arrays), or null.
 * Lazy schemas (type schemas) are not entered: they accept spellings their shape omits.
 */
export function objectShapeOf(schema: unknown, depth = 0): Shape | null {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return null;
  const s = schema as SchemaLike;
  const type = s.def?.type;
  if (WRAPPERS.has(type)) return objectShapeOf(s.def?.innerType, depth + 1);
  if (type === 'array') return objectShapeOf(s.def?.element, depth + 1);
  if (type === 'object' && typeof s.shape === 'object' && s.shape !== null) return s.shape as Shape;
  return null;
}

/** A node's known keys, as the loader's unknown-key warning sees them; null when it cannot tell. */
export function nodeShapeOf(nodeType: NodeType): { shape: Shape; extra: readonly string[] } | null {
  const own = (nodeType.schema as { shape?: unknown } | undefined)?.shape;
  const ownShape = typeof own === 'object' && own !== null ? (own as Shape) : null;
  if (ownShape === null && !nodeType.keys) return null; // a plugin without a declared shape
  return { shape: { ...commonNodeShape, ...ownShape }, extra: nodeType.keys ?? [] };
}

/** The top level of a flow document: its fields and `nodes`. */
export const TOP_LEVEL = { shape: topLevelShape as Shape, extra: ['nodes'] } as const;

export function isKnownKey(
  key: string,
  known: { shape: Shape; extra: readonly string[] },
): boolean {
  return Object.hasOwn(known.shape, key) || known.extra.includes(key);
}
