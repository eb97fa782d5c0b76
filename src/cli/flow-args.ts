import { FlowDefinitionError } from '../errors/flow-definition-errors.js';
import { loadFlowFile } from '../engine/parse-flow.js';
import { defaultFunctions, type FunctionRegistry } from '../expression/function-registry.js';
import type { Flow } from '../flow/flow.js';
import { defaultRegistry } from '../nodes/default-registry.js';
import type { NodeRegistry } from '../nodes/node-registry.js';
import { loadQuickJS } from '../nodes/code/code-runtime.js';
import { loadNodeModules, nodeModulesFromEnv } from '../nodes/plugin-modules.js';
import { silentLogger } from '../util/logger.js';
import type { CommandContext } from './command-context.js';
import { CliError, EXIT } from './exit-codes.js';
import { limitsFromEnv } from './operator-limits.js';

/** The registry for this invocation: built-ins plus `--nodes` and `PLAITA_NODE_MODULES` plugins. */
export async function cliRegistry(nodes: string | undefined): Promise<NodeRegistry> {
  return (await cliPlugins(nodes)).registry;
}

/** The plugin modules of `--nodes` and then PLAITA_NODE_MODULES, as given. */
export function pluginModuleList(nodes: string | undefined): string[] {
  return [
    ...(nodes ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    ...nodeModulesFromEnv(),
  ];
}

/** Node types and `$F` functions: built-ins plus what the plugin modules export. */
export async function cliPlugins(
  nodes: string | undefined,
): Promise<{ registry: NodeRegistry; functions: FunctionRegistry }> {
  const modules = pluginModuleList(nodes);
  // The operator's limits reach the node types at load: a code node whose backend is off
  // (PLAITA_CODE_BACKENDS) fails validation, never halfway through a run.
  const limits = limitsFromEnv();
  // Loaded up front so JavaScript code nodes get their syntax checked when the flow loads.
  await loadQuickJS().catch(() => undefined);
  if (modules.length === 0)
    return { registry: defaultRegistry.withLimits(limits), functions: defaultFunctions };
  const registry = defaultRegistry.withLimits(limits);
  const functions = defaultFunctions.copy();
  const report = await loadNodeModules(registry, modules, { logger: silentLogger, functions });
  if (report.failed.length > 0) {
    // Asked for explicitly: a plugin that does not load stops the command, naming the module.
    const lines = report.failed.map(
      (f) => `node module '${f.module}' could not be loaded: ${f.error}`,
    );
    throw new CliError(lines.join('\n'), EXIT.usage);
  }
  return { registry, functions };
}

/** Loads a flow file; an invalid flow is exit 2 with every issue and its path. */
export async function loadFlowArg(path: string, registry: NodeRegistry): Promise<Flow> {
  try {
    return await loadFlowFile(path, { registry, logger: silentLogger });
  } catch (error) {
    if (error instanceof FlowDefinitionError) throw definitionError(path, error);
    throw error;
  }
}

/**
 * The load warnings `validate` lists (e.g. flow/env-warnings.ts's secret-looking `exposeEnv`
 * names), on stderr for the commands that run a flow; never part of the JSON document.
 */
export function noteFlowWarnings(context: CommandContext, flow: Flow): void {
  const out = context.output();
  for (const warning of flow.warnings) out.note(`warning: ${warning}`);
}

export function definitionError(path: string, error: FlowDefinitionError): CliError {
  const lines = error.issues.map((i) => `  ${i.path || '(document)'}: ${i.message}`);
  return new CliError(
    `${path}: invalid flow (${error.issues.length} problem${error.issues.length === 1 ? '' : 's'})\n${lines.join('\n')}`,
    EXIT.usage,
    {
      issues: error.issues,
    },
  );
}
