import { z } from 'zod';
import { commonNodeShape, topLevelShape } from '../flow/document-schema.js';
import type { NodeTypeLookup } from '../flow/node-type-lookup.js';

/**
 * The flow document's JSON Schema, generated from the same zod schemas the loader checks
 * with, so editors and the engine agree. Node types without a zod object schema (plugins)
 * are allowed through a generic node entry.
 */
export function flowDocumentJsonSchema(registry: NodeTypeLookup): Record<string, unknown> {
  const typed = registry
    .types()
    .map((type) => ({
      type,
      shape: (registry.get(type)?.schema as { shape?: z.ZodRawShape } | undefined)?.shape,
    }))
    .filter((t): t is { type: string; shape: z.ZodRawShape } => t.shape !== undefined);
  const known = typed.map((t) => t.type);
  const nodeSchemas = typed.map(({ type, shape }) =>
    z
      .looseObject({ ...commonNodeShape, ...shape, type: z.literal(type) })
      .describe(`a "${type}" node`),
  );
  const otherNode = z
    .looseObject({
      ...commonNodeShape,
      type: z.string().regex(new RegExp(`^(?!(?:${known.map(escape).join('|')})$)`)),
    })
    .describe('a node of a plugin type');
  const document = z
    .looseObject({ ...topLevelShape, nodes: z.array(z.union([...nodeSchemas, otherNode])) })
    .describe('A plaita flow document');
  const schema = z.toJSONSchema(document, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  return { ...schema, $id: 'https://plaita.dev/schema/flow.schema.json', title: 'plaita flow' };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
