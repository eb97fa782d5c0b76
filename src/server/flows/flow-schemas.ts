import { z } from '@hono/zod-openapi';
import { ISSUE_CODES } from '../../flow/analysis/flow-issue.js';
import { ErrorViewSchema, JsonObject, JsonValue } from '../schemas.js';

/** The schemas of the flow routes (docs/http-api.md §4 Flows). */

/** Flow ids and versions the API manages: URL-safe, no separator a store key could hold. */
export const FLOW_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
export const VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const flowIdField = z.string().regex(FLOW_ID, 'letters, digits and . _ - (at most 200)');
const versionField = z.string().regex(VERSION, 'letters, digits and . _ - (at most 100)');

export const FlowIdParam = z.object({
  flowId: flowIdField.openapi({ param: { name: 'flowId', in: 'path' }, example: 'orders' }),
});

export const VersionParams = FlowIdParam.extend({
  version: versionField.openapi({ param: { name: 'version', in: 'path' }, example: '3' }),
});

export const FlowIssueSchema = z
  .object({
    severity: z.enum(['error', 'warning']),
    code: z.enum(ISSUE_CODES),
    path: z.string(),
    nodeId: z.string().nullable(),
    message: z.string(),
    suggestion: z.string().optional(),
    column: z.number().int().optional(),
  })
  .openapi('FlowIssue');

export const FlowSummarySchema = z
  .object({
    flowId: z.string(),
    latestVersion: z.string().nullable().openapi({
      description: 'the version published most recently: what a start without version runs',
    }),
    versionCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('FlowSummary');

export const VersionSummarySchema = z
  .object({
    flowId: z.string(),
    version: z.string(),
    status: z.enum(['draft', 'published']),
    hash: z
      .string()
      .openapi({ description: 'SHA-256 of the canonical JSON: an execution’s flowHash' }),
    createdAt: z.string(),
    updatedAt: z.string(),
    publishedAt: z.string().nullable(),
  })
  .openapi('FlowVersionSummary');

export const FlowSchema = FlowSummarySchema.extend({
  versions: z.array(VersionSummarySchema).openapi({ description: 'newest first' }),
}).openapi('Flow');

export const FlowGraphSchema = z
  .object({
    nodes: z
      .array(
        z.object({
          id: z.string(),
          type: z.string().nullable(),
          missing: z.boolean().openapi({
            description: 'an id an edge names but no node has (an unknown_target); type null',
          }),
          replayable: z.boolean().nullable().openapi({
            description:
              'true: a durable worker may recompute it after a crash (a retry or replay runs it again for free); false: effectful, its result is stored before the next node runs; null: the node did not load',
          }),
          effect: z
            .string()
            .nullable()
            .openapi({ description: 'why the node is effectful; null when replayable' }),
        }),
      )
      .openapi({ description: 'document order, one per id; then the missing ones' }),
    edges: z.array(
      z.object({
        from: z.string(),
        to: z.string(),
        kind: z.enum(['next', 'branch']).openapi({
          description: '`next` of a non-branching node, or a target of a branching one',
        }),
        label: z
          .string()
          .nullable()
          .openapi({ description: 'the words on the edge (`true`, a branch name), or null' }),
      }),
    ),
  })
  .openapi('FlowGraph', {
    description:
      'The nodes and the edges the engine can follow between them, as the node types (plugins included) declare them. A node that does not load is listed without edges.',
  });

export const VersionSchema = VersionSummarySchema.extend({
  document: JsonObject,
  issues: z.array(FlowIssueSchema).openapi({ description: 'warnings found when it was saved' }),
  graph: FlowGraphSchema,
}).openapi('FlowVersion');

/** A document in a JSON field: the object itself, or its JSON or YAML text. */
const DocumentField = z
  .union([JsonObject, z.string().min(1)])
  .openapi({ description: 'a flow document, or its JSON or YAML text' });

export const ValidateBody = z.strictObject({ flow: DocumentField }).openapi('ValidateFlow');

export const ValidateResultSchema = z
  .object({
    valid: z.boolean(),
    issues: z.array(FlowIssueSchema),
    graph: FlowGraphSchema.nullable().openapi({
      description: 'the document drawn as far as it loads; null when it cannot be read',
    }),
  })
  .openapi('FlowValidation');

export const DryRunBody = z
  .strictObject({
    flow: DocumentField.optional(),
    flowId: flowIdField.optional(),
    version: versionField.optional().openapi({
      description: 'a draft or published version; absent: the latest published',
    }),
    input: JsonObject.optional(),
    pinned: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'node id → the output it gives without running' }),
    onlyNode: z.string().min(1).max(200).optional().openapi({
      description: 'run only this node, against the input and the pinned outputs',
    }),
  })
  .openapi('DryRun');

const TraceEntrySchema = z.object({
  nodeId: z.string(),
  type: z.string().nullable(),
  status: z.enum(['done', 'pinned', 'failed', 'waiting']),
  output: JsonValue,
  durationMs: z.number(),
});

export const DryRunResultSchema = z
  .object({
    status: z.enum(['completed', 'error', 'waiting']),
    result: JsonValue.optional(),
    error: ErrorViewSchema.optional(),
    waiting: z.object({ nodeId: z.string(), eventType: z.string() }).optional(),
    trace: z.array(TraceEntrySchema),
    truncated: z.literal(true).optional().openapi({ description: 'the trace stops at 1000 runs' }),
  })
  .openapi('DryRunResult');

/** The PUT body: declared for the reference page; read and parsed by the route itself. */
export const DocumentBody = {
  content: {
    'application/json': { schema: { type: 'object' as const } },
    'application/yaml': { schema: { type: 'string' as const } },
  },
  required: true,
};
