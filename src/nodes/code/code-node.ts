import { z } from 'zod';
import { CodeBackendDisabledError, CodeError } from '../../errors/code-errors.js';
import type { FlowLoader } from '../../flow/flow-loader.js';
import type { NodeContext, NodeType } from '../../flow/node-type.js';
import { renderPath } from '../../state/value-path.js';
import { whenReady, type MaybePromise } from '../../util/maybe-promise.js';
import { builtinNode, pick } from '../builtin-node.js';
import {
  backendOf,
  definesPythonRun,
  enableHint,
  isExpression,
  LANGUAGE_SPELLINGS,
  parseLanguage,
  type CodeLanguage,
} from './code-language.js';
import { sharedCodeRuntime, type CodeRuntime } from './code-runtime.js';
import { runPython } from './python-backend.js';

interface CodeFields {
  /** The source, or a `$` expression giving it (resolved per run). */
  code: string;
  /** A CodeLanguage, or a `$` expression giving one (resolved per run). */
  language: string;
  input: unknown;
  /** Without `input`, `run` receives null: the original passes its unset `input` (None). */
  hasInput: boolean;
}

/**
 * docs/code-node.md: runs the `run(input)` the node's `code` defines and returns its result.
 * JavaScript (the default) runs in a QuickJS WebAssembly sandbox of `runtime`; Python in a
 * subprocess, only where the operator enabled that backend. Which backends are on is checked
 * at load, so a flow never fails halfway for a node it could not have run.
 */
export function createCodeNode(runtime: CodeRuntime): NodeType {
  return builtinNode({
    type: 'code',
    schema: z.looseObject({
      code: z.string().optional(),
      language: z.string().optional(),
      lang: z.string().optional(),
      input: z.unknown().optional(),
      // The original's per-node isolation level: the operator decides here, so it is ignored.
      sandbox_backend: z.unknown().optional(),
    }),
    load(raw, loader): CodeFields {
      const languageField =
        raw.language === undefined && raw.lang !== undefined ? 'lang' : 'language';
      const languageRaw = pick(raw.language, raw.lang);
      const code = raw.code ?? '';
      let language: string = 'javascript';
      if (isExpression(languageRaw)) language = languageRaw;
      else if (languageRaw !== undefined) {
        const parsed = parseLanguage(languageRaw);
        if (parsed === undefined)
          loader.issue(languageField, `expected ${LANGUAGE_SPELLINGS.join(' | ')}`);
        else language = parsed;
      }
      if (code.trim() === '') loader.issue('code', 'a code node needs `code` defining run(input)');
      else if (language === 'javascript' || language === 'python') {
        const given = languageRaw !== undefined ? languageField : '';
        checkStatic(runtime, language, code, given, nodeName(raw), loader);
      }
      return { code, language, input: raw.input, hasInput: raw.input !== undefined };
    },
    run(ctx) {
      const { def } = ctx;
      return whenReady(resolveSource(ctx), ({ code, language }) =>
        whenReady(def.hasInput ? ctx.evaluate(def.input) : null, (input) =>
          execute(runtime, ctx, language, code, input),
        ),
      );
    },
  });
}

/** The built-in code node type, on the process's shared runtime (code-runtime.ts). */
export const codeNode = createCodeNode(sharedCodeRuntime);

function nodeName(raw: Record<string, unknown>): string {
  return typeof raw.id === 'string' ? `code node '${raw.id}'` : 'this code node';
}

/** Load-time checks: the backend is enabled, and the code compiles (JavaScript). */
function checkStatic(
  runtime: CodeRuntime,
  language: CodeLanguage,
  code: string,
  field: string,
  name: string,
  loader: FlowLoader,
): void {
  const backend = backendOf(language);
  if (!loader.limits.codeBackends.includes(backend)) {
    const why =
      backend === 'python'
        ? `${name} is Python, which runs as a subprocess with the worker's rights and is off`
        : `${name} is JavaScript, and the quickjs backend is off`;
    loader.issue(field, `${why}: ${enableHint(backend)}`, 'code_backend_disabled');
    return;
  }
  if (isExpression(code)) return;
  if (language === 'python') {
    if (!definesPythonRun(code))
      loader.issue('code', 'the Python code defines no `def run(input)`');
    return;
  }
  const problem = runtime.sandboxes.checkSyntax(code);
  if (!problem) return;
  const at = problem.line !== null ? ` at line ${problem.line}, column ${problem.column}` : '';
  const hint = definesPythonRun(code)
    ? ' (this looks like Python: a code node without `language` is JavaScript; set "language": "python")'
    : '';
  loader.issue('code', `${problem.message}${at}${hint}`);
}

function resolveSource(
  ctx: NodeContext<CodeFields>,
): MaybePromise<{ code: string; language: CodeLanguage }> {
  const { code, language } = ctx.def;
  if (!isExpression(code) && (language === 'javascript' || language === 'python'))
    return { code, language };
  return whenReady(ctx.evaluate(code), (source) =>
    whenReady(ctx.evaluate(language), (name) => dynamicSource(ctx, source, name)),
  );
}

/** `code` or `language` given by an expression: checked now, against the engine's limits. */
function dynamicSource(
  ctx: NodeContext<CodeFields>,
  source: unknown,
  name: unknown,
): { code: string; language: CodeLanguage } {
  const language = typeof name === 'string' ? parseLanguage(name) : undefined;
  if (language === undefined)
    throw new CodeError(
      `unknown language ${JSON.stringify(name)}: expected ${LANGUAGE_SPELLINGS.join(' | ')}`,
      {
        retryable: false,
      },
    );
  if (typeof source !== 'string' || source.trim() === '')
    throw new CodeError('the code expression gave no source text', { retryable: false });
  const backend = backendOf(language);
  if (!ctx.options.limits.codeBackends.includes(backend))
    throw new CodeBackendDisabledError(`the ${backend} backend is off: ${enableHint(backend)}`);
  return { code: source, language };
}

function execute(
  runtime: CodeRuntime,
  ctx: NodeContext<CodeFields>,
  language: CodeLanguage,
  source: string,
  input: unknown,
): MaybePromise<unknown> {
  const limits = ctx.options.limits;
  if (language === 'python') {
    return runPython({
      source,
      input,
      timeoutMs: budgetMs(ctx, limits.subprocessTimeoutMs),
      memoryBytes: limits.subprocessMemoryBytes,
      outputBytes: limits.codeOutputBytes,
      signal: ctx.signal,
    });
  }
  const run = {
    source,
    input,
    nowMs: ctx.clock.now(),
    root: renderPath('$NODE', [ctx.nodeId]),
    tenant: ctx.options.tenantId ?? '',
    cpuMs: budgetMs(ctx, limits.codeTimeoutMs),
    memoryBytes: limits.codeMemoryBytes,
    outputBytes: limits.codeOutputBytes,
  };
  return limits.codeThreads > 0
    ? runtime.threads.run(run, limits.codeThreads)
    : runtime.sandboxes.run(run);
}

/** The operator's limit, cut to what is left of the node's own `timeout`. */
function budgetMs(ctx: NodeContext<CodeFields>, limitMs: number): number {
  ctx.throwIfAborted();
  if (ctx.deadline === null) return limitMs;
  return Math.max(1, Math.min(limitMs, ctx.deadline - ctx.clock.now()));
}
