import { z } from 'zod';
import { overUtf8Bytes } from '../util/utf8.js';

/**
 * The raw flow document as written (docs/flow-format.md §1.2, §2.1): every accepted spelling is its own
 * optional key. Normalisation (first spelling wins) happens in the loader; this schema checks
 * types and enums so errors carry paths, and generates `schema/flow.schema.json`.
 */

export const durationSchema = z.union([z.number().min(0), z.string(), z.null()]).meta({
  id: 'duration',
  description: 'milliseconds (number or digit string) or an ISO 8601 duration such as PT30S',
});

export const HANDLER_STRATEGIES = ['abort', 'continue', 'continue-with', 'continue_with'] as const;

const strategySchema = z.enum(HANDLER_STRATEGIES, {
  error: () => 'expected abort | continue | continue-with',
});

export const handlerSchema = z
  .looseObject({
    strategy: strategySchema.optional(),
    defaultValue: z.unknown().optional(),
    code: z.number().int().nullable().optional(),
    message: z.string().nullable().optional(),
    retryTimes: z.number().int().nullable().optional(),
    retryDelay: durationSchema.optional(),
    retryBackoff: z.number().min(1).optional(),
  })
  .meta({ id: 'handler', description: 'errorHandler / timeoutHandler' });

export type RawHandler = z.infer<typeof handlerSchema>;

/** Stores index node ids (docs/stores.md): a longer id could be loaded but never checkpointed. */
const MAX_NODE_ID_BYTES = 512;

const nodeIdSchema = z.union([
  z
    .string()
    .min(1)
    .refine((id) => !overUtf8Bytes(id, MAX_NODE_ID_BYTES), {
      message: `a node id holds at most ${MAX_NODE_ID_BYTES} UTF-8 bytes`,
    }),
  z.number(),
]);

export const commonNodeShape = {
  type: z.string().min(1),
  id: nodeIdSchema,
  name: z.string().nullable().optional(),
  desc: z.string().nullable().optional(),
  // "" is "no next" (the original tests it for truth; editors write it for an unset link).
  next: z.union([z.string(), z.number()]).nullable().optional(),
  output: z.unknown().optional(),
  timeout: durationSchema.optional(),
  errorHandler: handlerSchema.nullable().optional(),
  error_handler: handlerSchema.nullable().optional(),
  timeoutHandler: handlerSchema.nullable().optional(),
  timeout_handler: handlerSchema.nullable().optional(),
  idempotencyKey: z.boolean().optional(),
} as const;

export const commonNodeSchema = z.looseObject(commonNodeShape);

export const typeSchemaSchema: z.ZodType = z.lazy(() =>
  z
    .looseObject({
      dataType: z.string().optional(),
      data_type: z.string().optional(),
      type: z.string().optional(),
      name: z.string().nullable().optional(),
      isRequired: z.boolean().optional(),
      required: z.union([z.boolean(), z.array(z.string())]).optional(),
      itemType: typeSchemaSchema.nullable().optional(),
      items: typeSchemaSchema.nullable().optional(),
      children: z
        .union([z.record(z.string(), typeSchemaSchema), z.array(typeSchemaSchema)])
        .nullable()
        .optional(),
      properties: z
        .union([z.record(z.string(), typeSchemaSchema), z.array(typeSchemaSchema)])
        .nullable()
        .optional(),
    })
    .meta({ id: 'typeSchema', description: 'a type schema (docs/flow-format.md §1.3)' }),
);

export const RUNTIMES = ['python', 'javascript', 'typescript'] as const;

export const topLevelShape = {
  flow_id: z.string().nullable().optional(),
  flowId: z.string().nullable().optional(),
  id: z.string().nullable().optional(),
  version: z.union([z.string(), z.number()]).nullable().optional(),
  runtime: z
    .enum(RUNTIMES, { error: () => `expected ${RUNTIMES.join(' | ')} or absent` })
    .optional(),
  inputType: typeSchemaSchema.nullable().optional(),
  input_type: typeSchemaSchema.nullable().optional(),
  outputType: typeSchemaSchema.nullable().optional(),
  output_type: typeSchemaSchema.nullable().optional(),
  timeout: durationSchema.optional(),
  globalContext: z.record(z.string(), z.unknown()).nullable().optional(),
  global_context: z.record(z.string(), z.unknown()).nullable().optional(),
  exposeEnv: z.array(z.string()).nullable().optional(),
  expose_env: z.array(z.string()).nullable().optional(),
  idempotencyKey: z.boolean().optional(),
  maxSteps: z.number().int().positive().nullable().optional(),
  max_steps: z.number().int().positive().nullable().optional(),
  metadata: z.unknown().optional(),
  author: z.unknown().optional(),
  desc: z.unknown().optional(),
} as const;

/** Top level without `nodes`: nodes are checked one by one against their type's schema. */
export const topLevelSchema = z.looseObject({ ...topLevelShape, nodes: z.array(z.unknown()) });

/** Formats a zod issue path the way our messages write paths: `nodes[3].errorHandler.strategy`. */
export function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

export function describeZodIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}, got ${describeValue(issue.input)}`;
    case 'invalid_value':
      return issue.message.startsWith('expected ')
        ? issue.message
        : `expected ${issue.values.map((v) => String(v)).join(' | ')}`;
    case 'invalid_union':
      return `${issue.message}, got ${describeValue(issue.input)}`;
    default:
      return issue.message;
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return `${typeof value} ${value.toString()}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
