import { z } from 'zod';
import { RetryableError, TerminalError } from '../../errors/node-errors.js';
import type { NodeContext } from '../../flow/node-type.js';
import { displayForm } from '../../expression/values.js';
import { builtinNode } from '../builtin-node.js';
import { isDryRun } from './dry-run-flag.js';
import { HostPolicy } from '../io/host-policy.js';
import { type HttpResponseData, sendRequest } from '../io/send-request.js';

/**
 * `llm` (the original's plaita-nodes): one chat completion against an OpenAI-compatible
 * endpoint → `{text, model, usage, dry_run}`. The key is read from an environment variable the
 * node names (`api_key_env`, or the original's `api_key: "${NAME}"`), never from the flow, and
 * never reaches the state or a log. 429 and 5xx are retried after `Retry-After`.
 * docs/plugin-nodes.md "llm".
 */
interface LlmFields {
  messages: unknown;
  prompt: unknown;
  system: unknown;
  baseUrl: unknown;
  model: unknown;
  keyEnv: string;
  temperature: number;
  maxTokens: unknown;
  responseFormat: unknown;
  requestTimeoutMs: number;
  maxRetries: number;
  dryRun: boolean;
}

const ENV_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export const llmNode = builtinNode({
  type: 'llm',
  schema: z.looseObject({
    messages: z.unknown().optional(),
    prompt: z.unknown().optional(),
    system: z.unknown().optional(),
    base_url: z.string().optional(),
    api_base: z.string().optional(),
    model: z.string().optional(),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    api_key: z.string().optional(),
    temperature: z.number().optional(),
    max_tokens: z.unknown().optional(),
    response_format: z.unknown().optional(),
    json_mode: z.boolean().optional(),
    timeout_secs: z.number().positive().optional(),
    max_retries: z.number().int().min(0).max(10).optional(),
    dry_run: z.boolean().optional(),
  }),
  load(raw, loader): LlmFields {
    let keyEnv = raw.api_key_env ?? 'LLM_API_KEY';
    if (raw.api_key !== undefined) {
      const named = ENV_REFERENCE.exec(raw.api_key);
      if (named) keyEnv = named[1]!;
      else
        loader.issue(
          'api_key',
          'a key is never written in a flow: name the environment variable that holds it (api_key_env: OPENAI_API_KEY, or api_key: "${OPENAI_API_KEY}")',
        );
    }
    if (raw.messages === undefined && raw.prompt === undefined)
      loader.issue('prompt', 'llm needs prompt (with an optional system) or messages');
    return {
      messages: raw.messages ?? null,
      prompt: raw.prompt ?? null,
      system: raw.system ?? null,
      baseUrl: raw.base_url ?? raw.api_base ?? null,
      model: raw.model ?? null,
      keyEnv,
      temperature: raw.temperature ?? 0.2,
      maxTokens: raw.max_tokens ?? null,
      responseFormat: raw.response_format ?? (raw.json_mode ? { type: 'json_object' } : null),
      requestTimeoutMs: (raw.timeout_secs ?? 120) * 1000,
      maxRetries: raw.max_retries ?? 2,
      dryRun: raw.dry_run ?? false,
    };
  },
  async run(ctx) {
    const d = ctx.def;
    const model = textOf(d.model === null ? null : await ctx.evaluate(d.model), 'LLM_MODEL');
    if (isDryRun(ctx))
      return { text: '[dry-run] llm completion', model, usage: null, dry_run: true };
    const body: Record<string, unknown> = {
      model,
      messages: await messagesOf(ctx),
      temperature: d.temperature,
    };
    if (d.maxTokens !== null) body.max_tokens = Number(await ctx.evaluate(d.maxTokens));
    if (d.responseFormat !== null) body.response_format = await ctx.evaluate(d.responseFormat);
    const response = await complete(ctx, endpoint(await baseUrlOf(ctx), model, d.keyEnv), body);
    const data = response.data as {
      choices?: Array<{ message?: { content?: unknown } }>;
      usage?: unknown;
      model?: unknown;
    } | null;
    const text = data?.choices?.[0]?.message?.content;
    if (typeof text !== 'string' && text !== null)
      throw new TerminalError('the completion has no choices[0].message.content', {
        code: 'llm_bad_response',
      });
    return { text: text ?? '', model, usage: data?.usage ?? null, dry_run: false };
  },
});

interface Endpoint {
  url: URL;
  key: string;
}

function endpoint(baseUrl: string, model: string, keyEnv: string): Endpoint {
  const key = process.env[keyEnv];
  const missing = [
    baseUrl ? null : 'base_url (or LLM_API_BASE)',
    model ? null : 'model (or LLM_MODEL)',
    key ? null : `the key in the environment variable ${keyEnv}`,
  ].filter((m) => m !== null);
  if (missing.length > 0)
    throw new TerminalError(`llm has no ${missing.join(', ')}`, { code: 'llm_not_configured' });
  let url: URL;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, '')}/chat/completions`);
  } catch {
    throw new TerminalError(`llm base_url ${JSON.stringify(baseUrl)} is not a URL`, {
      code: 'llm_not_configured',
    });
  }
  return { url, key: key! };
}

async function baseUrlOf(ctx: NodeContext<LlmFields>): Promise<string> {
  const value = ctx.def.baseUrl === null ? null : await ctx.evaluate(ctx.def.baseUrl);
  return textOf(value, 'LLM_API_BASE');
}

async function messagesOf(ctx: NodeContext<LlmFields>): Promise<unknown> {
  const d = ctx.def;
  if (d.messages !== null) return ctx.evaluate(d.messages);
  const messages: Array<{ role: string; content: string }> = [];
  const system = d.system === null ? null : await ctx.evaluate(d.system);
  if (system) messages.push({ role: 'system', content: displayForm(system) });
  messages.push({ role: 'user', content: displayForm((await ctx.evaluate(d.prompt)) ?? '') });
  return messages;
}

/** One completion, retried on 429/5xx; the last failure is retryable by the node's policy. */
async function complete(
  ctx: NodeContext<LlmFields>,
  target: Endpoint,
  body: Record<string, unknown>,
): Promise<HttpResponseData> {
  const { limits } = ctx.options;
  const policy = new HostPolicy({
    allowedHosts: [],
    deniedHosts: [],
    blockPrivateNetworks: limits.privateNetworks === 'deny',
    blockedBy: 'privateNetworks=deny',
  });
  for (let attempt = 0; ; attempt++) {
    const headers = new Headers({
      authorization: `Bearer ${target.key}`,
      'content-type': 'application/json',
      accept: 'application/json',
    });
    const response = await sendRequest(
      { url: target.url, method: 'POST', headers, body: JSON.stringify(body) },
      {
        policy,
        maxRedirects: 0,
        hopTimeoutMs: ctx.def.requestTimeoutMs,
        maxResponseBytes: Math.min(MAX_RESPONSE_BYTES, limits.maxResponseBytes),
        signal: ctx.signal,
      },
    ).catch((error: unknown) => {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw error;
    });
    if (response.status < 400) return response;
    const transient = response.status === 429 || response.status >= 500;
    const detail = `${response.status} ${summary(response.data)}`;
    if (!transient)
      throw new TerminalError(`the completion was refused: ${detail}`, { code: 'llm_refused' });
    const waitMs = retryAfterMs(response.headers['retry-after'], attempt);
    if (attempt >= ctx.def.maxRetries)
      throw new RetryableError(`the completion failed ${attempt + 1} times, last: ${detail}`, {
        code: 'llm_unavailable',
        retryAfterMs: waitMs,
      });
    await pause(ctx, waitMs);
  }
}

/** `Retry-After` in seconds or as an HTTP date; else 0.5 s doubling. Capped at a minute. */
function retryAfterMs(header: string | undefined, attempt: number): number {
  const seconds = header === undefined ? NaN : Number(header);
  const fromHeader = Number.isFinite(seconds)
    ? seconds * 1000
    : header === undefined
      ? NaN
      : Date.parse(header) - Date.now();
  const ms = Number.isFinite(fromHeader) ? Math.max(0, fromHeader) : 500 * 2 ** attempt;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

function pause(ctx: NodeContext<LlmFields>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      cancel();
      reject(ctx.signal.reason as Error);
    };
    const cancel = ctx.clock.setTimeout(() => {
      ctx.signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A field's text (§5.6 display form), else the environment variable's, else empty. */
function textOf(value: unknown, fallbackEnv: string): string {
  if (value !== null && value !== undefined) return displayForm(value);
  return process.env[fallbackEnv] ?? '';
}

function summary(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data ?? null);
  return text.slice(0, 300);
}
