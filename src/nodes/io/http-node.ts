import { z } from 'zod';
import type { FlowLoader } from '../../flow/flow-loader.js';
import type { NodeContext, NodeDef } from '../../flow/node-type.js';
import { NodeError } from '../../errors/flow-errors.js';
import { builtinNode, pick } from '../builtin-node.js';
import {
  buildRequest,
  FETCH_FORBIDDEN_METHODS,
  HTTP_METHODS,
  type HttpMethod,
  type RequestParts,
} from './build-request.js';
import { HostPolicy } from './host-policy.js';
import { HttpErrorCode } from './http-error-codes.js';
import { httpLimits } from './http-limits.js';
import { sendRequest, type HttpResponseData } from './send-request.js';

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_REDIRECTS = 5;
const METHOD_SET: ReadonlySet<string> = new Set(HTTP_METHODS);

const methodSchema = z.string().refine((m) => METHOD_SET.has(m.toUpperCase()), {
  error: `expected ${HTTP_METHODS.join(' | ')}`,
});
const timeoutSchema = z
  .union([z.number().min(0), z.string()])
  .nullable()
  .optional();
const hostListSchema = z.array(z.string()).nullable().optional();
const redirectsSchema = z.number().int().min(0).nullable().optional();
const bytesSchema = z.number().int().min(1).nullable().optional();

export interface HttpFields {
  url: string;
  method: HttpMethod;
  /** Null or "" sends no Content-Type. */
  contentType: string | null;
  headers: unknown;
  query: unknown;
  body: unknown;
  /** Per hop; null = no limit of its own. */
  requestTimeoutMs: number | null;
  allowedHosts: string[];
  deniedHosts: string[];
  blockPrivateNetworks: boolean;
  maxRedirects: number;
  /** The node's own body cap; null = the operator's `maxResponseBytes` alone. */
  maxResponseBytes: number | null;
  failOnStatus: boolean;
}

/** docs/flow-format.md §3.16: one HTTP exchange; errors 1001 (build), 1002 (send), 1003 (response). */
export const httpNode = builtinNode({
  type: 'http',
  schema: z.looseObject({
    url: z.string().min(1),
    method: methodSchema.optional(),
    contentType: z.string().nullable().optional(),
    content_type: z.string().nullable().optional(),
    headers: z.unknown().optional(),
    query: z.unknown().optional(),
    body: z.unknown().optional(),
    requestTimeout: timeoutSchema,
    request_timeout: timeoutSchema,
    allowedHosts: hostListSchema,
    allowed_hosts: hostListSchema,
    deniedHosts: hostListSchema,
    denied_hosts: hostListSchema,
    blockPrivateNetworks: z.boolean().nullable().optional(),
    block_private_networks: z.boolean().nullable().optional(),
    maxRedirects: redirectsSchema,
    max_redirects: redirectsSchema,
    maxResponseBytes: bytesSchema,
    max_response_bytes: bytesSchema,
    failOnStatus: z.boolean().nullable().optional(),
    addressing: z.unknown().optional(), // accepted and ignored (original's service routing)
    delegate: z.unknown().optional(),
  }),
  load(raw, loader): HttpFields {
    const contentType = pick(raw.contentType, raw.content_type);
    return {
      url: raw.url,
      method: (raw.method ?? 'GET').toUpperCase() as HttpMethod,
      contentType: contentType === undefined ? 'application/json' : contentType,
      headers: raw.headers ?? null,
      query: raw.query ?? null,
      body: raw.body ?? null,
      requestTimeoutMs: requestTimeoutMs(
        raw.requestTimeout !== undefined ? 'requestTimeout' : 'request_timeout',
        pick(raw.requestTimeout, raw.request_timeout),
        loader,
      ),
      allowedHosts: pick(raw.allowedHosts, raw.allowed_hosts) ?? [],
      deniedHosts: pick(raw.deniedHosts, raw.denied_hosts) ?? [],
      blockPrivateNetworks: pick(raw.blockPrivateNetworks, raw.block_private_networks) ?? false,
      maxRedirects: pick(raw.maxRedirects, raw.max_redirects) ?? DEFAULT_MAX_REDIRECTS,
      maxResponseBytes: pick(raw.maxResponseBytes, raw.max_response_bytes) ?? null,
      failOnStatus: raw.failOnStatus ?? false,
    };
  },
  validate: validateHttp,
  async run(ctx) {
    try {
      const request = buildRequest(await evaluateParts(ctx));
      const limits = httpLimits(ctx.def, ctx.options.limits);
      const response = await sendRequest(request, {
        policy: new HostPolicy({
          allowedHosts: ctx.def.allowedHosts,
          deniedHosts: ctx.def.deniedHosts,
          blockPrivateNetworks: limits.blockPrivateNetworks,
          blockedBy: limits.blockedBy,
        }),
        maxRedirects: ctx.def.maxRedirects,
        hopTimeoutMs: ctx.def.requestTimeoutMs,
        maxResponseBytes: limits.maxResponseBytes,
        signal: ctx.signal,
      });
      return await handleResponse(ctx, response);
    } catch (error) {
      // A node timeout or cancellation is the engine's to handle, not an HTTP failure.
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw error;
    }
  },
});

/** Seconds as a number (the original's unit), or a §7.6 duration string; absent or null = 30 s. */
function requestTimeoutMs(
  field: string,
  raw: number | string | null | undefined,
  loader: FlowLoader,
): number | null {
  if (raw === undefined || raw === null) return DEFAULT_REQUEST_TIMEOUT_MS;
  if (typeof raw === 'number') return raw === 0 ? null : Math.max(1, Math.round(raw * 1000));
  return loader.duration(raw, field);
}

/** Also called for a node whose fields failed to load (then they are absent): check before use. */
function validateHttp(def: NodeDef<HttpFields>): string[] {
  const warnings: string[] = [];
  if (typeof def.method !== 'string') return warnings;
  if (FETCH_FORBIDDEN_METHODS.has(def.method))
    warnings.push(
      `${def.method} requests cannot be sent by this runtime's HTTP client: the node will fail with 1001`,
    );
  if (def.body !== null && (def.method === 'GET' || def.method === 'HEAD'))
    warnings.push(`a ${def.method} request carries no body: "body" will not be sent`);
  for (const entry of HostPolicy.invalidEntries([
    ...(def.allowedHosts ?? []),
    ...(def.deniedHosts ?? []),
  ])) {
    warnings.push(`host entry "${entry}" is not a valid CIDR block and never matches`);
  }
  return warnings;
}

async function evaluateParts(ctx: NodeContext<HttpFields>): Promise<RequestParts> {
  const { def } = ctx;
  const url = await evaluateField(ctx, 'url', def.url);
  const headers = await evaluateField(ctx, 'headers', def.headers);
  const query = await evaluateField(ctx, 'query', def.query);
  let body = await evaluateField(ctx, 'body', def.body);
  if (body !== null && body !== undefined && (def.method === 'GET' || def.method === 'HEAD')) {
    // fetch cannot send a body with GET/HEAD; the original's client did. Say so, don't fail.
    ctx.warn(`the body of a ${def.method} request is not sent`);
    body = null;
  }
  const enabled = def.idempotencyKey ?? ctx.flow.idempotencyKey;
  return {
    url,
    method: def.method,
    contentType: def.contentType,
    headers,
    query,
    body,
    idempotencyKey: enabled ? ctx.idempotencyKey : null,
  };
}

async function evaluateField(
  ctx: NodeContext<HttpFields>,
  field: string,
  value: unknown,
): Promise<unknown> {
  if (value === null || value === undefined) return null;
  try {
    return await ctx.evaluate(value);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw new NodeError(
      HttpErrorCode.requestNotBuilt,
      `cannot evaluate ${field}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

async function handleResponse(
  ctx: NodeContext<HttpFields>,
  response: HttpResponseData,
): Promise<unknown> {
  if (ctx.def.failOnStatus && response.status >= 400 && response.status <= 599) {
    throw new NodeError(
      HttpErrorCode.responseNotHandled,
      `HTTP ${response.status} ${response.statusText}`.trimEnd(),
    );
  }
  if (ctx.def.output === null || ctx.def.output === undefined) return response.data;
  return evaluateOutput(ctx, response);
}

/** `output` sees `$NODE.<id>` = the response; the previous entry is restored afterwards. */
async function evaluateOutput(
  ctx: NodeContext<HttpFields>,
  response: HttpResponseData,
): Promise<unknown> {
  const previous = ctx.get('$NODE');
  const nodes =
    typeof previous === 'object' && previous !== null ? (previous as Record<string, unknown>) : {};
  // A fresh object, never a mutation: the context may share `$NODE` with a snapshot.
  const { data, status, statusText, headers } = response;
  ctx.set('$NODE', { ...nodes, [ctx.nodeId]: { data, status, statusText, headers } });
  try {
    return await ctx.evaluate(ctx.def.output);
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw new NodeError(
      HttpErrorCode.responseNotHandled,
      `cannot evaluate output: ${messageOf(error)}`,
      { cause: error },
    );
  } finally {
    ctx.set('$NODE', previous);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
