import type { z } from 'zod';
import {
  type DefinitionIssue,
  FlowDefinitionError,
  DurationFormatError,
  TypeSchemaError,
} from '../errors/flow-definition-errors.js';
import { parseCondition } from '../expression/condition.js';
import { parseDuration } from '../util/duration.js';
import {
  commonNodeSchema,
  commonNodeShape,
  describeZodIssue,
  formatPath,
  topLevelSchema,
  topLevelShape,
} from './document-schema.js';
import type { Flow, LoadedNode } from './flow.js';
import type { FlowLoader } from './flow-loader.js';
import type { NodeTypeLookup } from './node-type-lookup.js';
import type { NodeContext, NodeDef, NodeType } from './node-type.js';
import { normalizeCommon } from './normalize-common.js';
import { checkDocumentDepth, MAX_DOCUMENT_DEPTH, parseDocumentText } from './parse-document.js';
import { checkDepth } from '../util/value-depth.js';
import { parseTypeSchema, type TypeSchema } from './type-schema.js';
import { envWarnings } from './env-warnings.js';
import { declaredTargets } from './node-edges.js';
import { resolveLimits, type RuntimeLimits } from './runtime-limits.js';

export interface LoadOptions {
  registry: NodeTypeLookup;
}

/** Collects issues and warnings across a document and its embedded child flows. */
class LoadSession {
  readonly issues: DefinitionIssue[] = [];
  readonly limits: RuntimeLimits;
  constructor(readonly registry: NodeTypeLookup) {
    this.limits = resolveLimits(registry.limits);
  }
}

const loadedFlows = new WeakSet<object>();
/** Issues carry the value they refused, so a message can say what was given ("got the string \"a\""). */
const REPORT_INPUT = { reportInput: true } as const;

/** True for a Flow this module produced (as opposed to a raw document). */
export function isLoadedFlow(value: unknown): value is Flow {
  return typeof value === 'object' && value !== null && loadedFlows.has(value);
}

/** Loads a parsed document; throws FlowDefinitionError listing every issue with its path. */
export function loadFlowDocument(document: unknown, options: LoadOptions): Flow {
  const { flow, issues } = loadFlowPartly(document, options);
  if (issues.length > 0) throw new FlowDefinitionError(issues);
  return flow;
}

/**
 * What loads of a document, with every issue (a draft being written, drawn as far as it can
 * be): nodes that do not load are left out. With issues the flow is a copy that runFlow and
 * the analysis do not take as loaded. Throws only when the document is nested too deep.
 */
export function loadFlowPartly(
  document: unknown,
  options: LoadOptions,
): { flow: Flow; issues: DefinitionIssue[] } {
  // An object handed over directly was never parsed here: its depth is checked all the same.
  checkDocumentDepth(() => checkDepth(document, MAX_DOCUMENT_DEPTH, ''));
  const session = new LoadSession(options.registry);
  const flow = loadInSession(document, '', session);
  return session.issues.length > 0
    ? { flow: { ...flow }, issues: session.issues }
    : { flow, issues: [] };
}

function loadInSession(document: unknown, prefix: string, session: LoadSession): Flow {
  const warnings: string[] = [];
  const issue = (path: string, message: string): void => {
    session.issues.push({ path, message });
  };
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    issue(prefix, 'a flow document must be an object with a "nodes" array');
    return emptyFlow(warnings);
  }
  const doc = document as Record<string, unknown>;
  const parsed = topLevelSchema.safeParse(doc, REPORT_INPUT);
  if (!parsed.success) {
    for (const zi of parsed.error.issues) issue(formatPath(prefix, zi.path), describeZodIssue(zi));
  }
  const top = parsed.success ? parsed.data : undefined;
  const nodes: LoadedNode[] = [];
  const rawNodes = Array.isArray(doc.nodes) ? (doc.nodes as unknown[]) : [];
  rawNodes.forEach((raw, index) => {
    const node = loadNode(raw, index, `${formatPath(prefix, ['nodes', index])}`, session, warnings);
    if (node) nodes.push(node);
  });
  for (const key of Object.keys(doc)) {
    if (!(key in topLevelShape) && key !== 'nodes')
      warnings.push(`unknown top-level key "${key}" is ignored`);
  }
  const nodesById = new Map<string, LoadedNode>();
  for (const node of nodes) {
    if (nodesById.has(node.def.id))
      warnings.push(`duplicate node id "${node.def.id}": the last definition wins`);
    nodesById.set(node.def.id, node);
  }
  const startNode = nodes.find((n) => n.def.type === 'start') ?? null;
  if (!startNode && rawNodes.length > 0)
    warnings.push('the flow has no start node: it will fail when run');
  const exposeEnv = top?.exposeEnv ?? top?.expose_env ?? [];
  warnings.push(...envWarnings(doc, exposeEnv, session.limits.exposeSecretEnv));
  const durationAt = (raw: unknown, field: string): number | null =>
    duration(raw, formatPath(prefix, [field]), issue);
  const flow: Flow = {
    id: top?.flow_id ?? top?.flowId ?? top?.id ?? null,
    version: top?.version === undefined || top.version === null ? null : String(top.version),
    runtime: top?.runtime ?? null,
    nodes,
    nodesById,
    startNode,
    timeoutMs: durationAt(top?.timeout, 'timeout'),
    globalContext: top?.globalContext ?? top?.global_context ?? {},
    exposeEnv,
    idempotencyKey: top?.idempotencyKey ?? true,
    maxSteps: top?.maxSteps ?? top?.max_steps ?? null,
    inputType: typeSchema(
      top?.inputType ?? top?.input_type,
      formatPath(prefix, [top?.inputType ? 'inputType' : 'input_type']),
      issue,
    ),
    outputType: typeSchema(
      top?.outputType ?? top?.output_type,
      formatPath(prefix, [top?.outputType ? 'outputType' : 'output_type']),
      issue,
    ),
    warnings,
    document: doc,
  };
  loadedFlows.add(flow);
  return flow;
}

function loadNode(
  raw: unknown,
  index: number,
  path: string,
  session: LoadSession,
  warnings: string[],
): LoadedNode | null {
  const issue = (p: string, message: string): void => {
    session.issues.push({ path: p, message });
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issue(path, 'a node must be an object with "type" and "id"');
    return null;
  }
  const record = raw as Record<string, unknown>;
  const common = commonNodeSchema.safeParse(raw, REPORT_INPUT);
  if (!common.success) {
    for (const zi of common.error.issues) issue(formatPath(path, zi.path), describeZodIssue(zi));
  }
  const type = common.success ? common.data.type : record.type;
  const nodeType = typeof type === 'string' ? session.registry.get(type) : undefined;
  if (!nodeType) {
    if (typeof type === 'string')
      issue(
        `${path}.type`,
        `unknown node type "${type}"; registered types: ${session.registry.types().join(', ')}`,
      );
    return null;
  }
  const loader = makeLoader(path, session, warnings);
  const fields = loadFields(nodeType, record, path, loader, issue);
  if (!common.success || fields === null) {
    // Keep listing what else is wrong with this node before giving up on it.
    if (common.success || !common.error.issues.some((zi) => zi.path[0] === 'timeout'))
      loader.duration(record.timeout, 'timeout');
    return null;
  }
  const def: NodeDef = {
    ...fields,
    ...normalizeCommon(common.data, {
      duration: (v, f) => loader.duration(v, f),
      warn: (m) => warnings.push(`${path}: ${m}`),
    }),
  };
  warnUnknownKeys(nodeType, raw as Record<string, unknown>, path, warnings);
  for (const warning of nodeType.validate?.(def) ?? [])
    warnings.push(`${path} (${def.id}): ${warning}`);
  return makeLoadedNode(def, nodeType, index);
}

function loadFields(
  nodeType: NodeType,
  raw: Record<string, unknown>,
  path: string,
  loader: FlowLoader,
  issue: (p: string, m: string) => void,
): Record<string, unknown> | null {
  let fields: unknown = raw;
  const schema = nodeType.schema as
    | (NodeType['schema'] & {
        safeParse?: (v: unknown, params?: typeof REPORT_INPUT) => z.ZodSafeParseResult<unknown>;
      })
    | undefined;
  if (schema?.safeParse) {
    const result = schema.safeParse(raw, REPORT_INPUT);
    if (!result.success) {
      for (const zi of result.error.issues) issue(formatPath(path, zi.path), describeZodIssue(zi));
      return null;
    }
    fields = result.data;
  } else if (schema) {
    try {
      fields = schema.parse(raw);
    } catch (error) {
      issue(path, error instanceof Error ? error.message : String(error));
      return null;
    }
  }
  const record = (typeof fields === 'object' && fields !== null ? fields : {}) as Record<
    string,
    unknown
  >;
  return nodeType.load ? nodeType.load(record, loader) : record;
}

function warnUnknownKeys(
  nodeType: NodeType,
  raw: Record<string, unknown>,
  path: string,
  warnings: string[],
): void {
  const shape = (nodeType.schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (!shape && !nodeType.keys) return; // a plugin without a declared shape: we cannot tell
  const known = new Set([
    ...Object.keys(commonNodeShape),
    ...Object.keys(shape ?? {}),
    ...(nodeType.keys ?? []),
  ]);
  for (const key of Object.keys(raw)) {
    if (!known.has(key))
      warnings.push(`${path}: unknown key "${key}" on a ${nodeType.type} node is ignored`);
  }
}

function makeLoadedNode(def: NodeDef, nodeType: NodeType, index: number): LoadedNode {
  const targets = nodeType.branching
    ? new Set(declaredTargets(nodeType, def).map((target) => target.to))
    : null;
  return {
    def,
    nodeType,
    index,
    targets,
    run: (ctx: NodeContext) => nodeType.run(ctx),
    resume: (ctx, type, data, state) => {
      if (!nodeType.resume) throw new Error(`node type "${nodeType.type}" cannot resume`);
      return nodeType.resume(ctx, type, data, state);
    },
  };
}

function makeLoader(path: string, session: LoadSession, warnings: string[]): FlowLoader {
  const at = (field: string): string => (field ? `${path}.${field}` : path);
  const issue = (field: string, message: string, code?: string): void => {
    session.issues.push(code ? { path: at(field), message, code } : { path: at(field), message });
  };
  const childFlow = (raw: unknown, field: string): Flow | null => {
    if (raw === undefined || raw === null) return null;
    let document: unknown = raw;
    if (typeof raw === 'string') {
      try {
        document = parseDocumentText(raw, 'json');
      } catch (error) {
        issue(
          field,
          `the embedded flow is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        );
        return null;
      }
    }
    const child = loadInSession(document, at(field), session);
    warnings.push(...child.warnings.map((w) => `${at(field)}: ${w}`));
    return child;
  };
  return {
    path,
    limits: session.limits,
    childFlow,
    requiredChildFlow(raw, field) {
      if (raw === undefined || raw === null) {
        issue(field, 'a child flow is required');
        return null;
      }
      return childFlow(raw, field);
    },
    condition(raw, field) {
      if (raw === undefined || raw === null) return null;
      return parseCondition(raw, {
        warn: (m) => warnings.push(`${at(field)}: ${m}`),
        issue: (ci) => issue(ci.path ? `${field}.${ci.path}` : field, ci.message),
      });
    },
    typeSchema: (raw, field) =>
      typeSchema(raw, at(field), (p, m) => session.issues.push({ path: p, message: m })),
    duration: (raw, field) =>
      duration(raw, at(field), (p, m) => session.issues.push({ path: p, message: m })),
    issue,
    warn: (message) => warnings.push(`${path}: ${message}`),
  };
}

function duration(
  raw: unknown,
  path: string,
  issue: (p: string, m: string) => void,
): number | null {
  try {
    return parseDuration(raw);
  } catch (error) {
    if (error instanceof DurationFormatError) {
      issue(path, error.message);
      return null;
    }
    throw error;
  }
}

function typeSchema(
  raw: unknown,
  path: string,
  issue: (p: string, m: string) => void,
): TypeSchema | null {
  if (raw === undefined || raw === null) return null;
  try {
    return parseTypeSchema(raw);
  } catch (error) {
    if (error instanceof TypeSchemaError) {
      issue(error.path ? `${path}.${error.path}` : path, error.message);
      return null;
    }
    throw error;
  }
}

function emptyFlow(warnings: string[]): Flow {
  return {
    id: null,
    version: null,
    runtime: null,
    nodes: [],
    nodesById: new Map(),
    startNode: null,
    timeoutMs: null,
    globalContext: {},
    exposeEnv: [],
    idempotencyKey: true,
    maxSteps: null,
    inputType: null,
    outputType: null,
    warnings,
    document: {},
  };
}
