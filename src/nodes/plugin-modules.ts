import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getDefaultLogger, type Logger } from '../util/logger.js';
import type { ExpressionFunction, FunctionRegistry } from '../expression/function-registry.js';
import type { NodeDefinition, NodeRegistry } from './node-registry.js';

export interface PluginLoadReport {
  loaded: string[];
  failed: Array<{ module: string; error: string }>;
}

export interface PluginLoadOptions {
  cwd?: string;
  logger?: Logger;
  /** Where `$F` functions a module exports go (`registerFunctions(functions)` or `functions: {name: fn}`). */
  functions?: FunctionRegistry;
}

/** Module names from `PLAITA_NODE_MODULES` (comma-separated). */
export function nodeModulesFromEnv(
  env: Record<string, string | undefined> = process.env,
): string[] {
  return (env.PLAITA_NODE_MODULES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Imports plugin modules (docs/flow-format.md §9.4) and registers their node types. A module exports
 * `register(registry)` (or `registerAll`), or `nodes` (definitions), or a default export of
 * either. One that fails is reported and logged; the others still load.
 */
export async function loadNodeModules(
  registry: NodeRegistry,
  modules: readonly string[],
  options: PluginLoadOptions = {},
): Promise<PluginLoadReport> {
  const log = options.logger ?? getDefaultLogger();
  const report: PluginLoadReport = { loaded: [], failed: [] };
  for (const name of modules) {
    try {
      const exports = (await import(
        resolveSpecifier(name, options.cwd ?? process.cwd())
      )) as Record<string, unknown>;
      registerFrom(registry, exports, name, options.functions);
      report.loaded.push(name);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.failed.push({ module: name, error: message });
      log.warn(
        { module: name, err: message },
        `node module '${name}' could not be loaded: ${message}`,
      );
    }
  }
  return report;
}

function resolveSpecifier(name: string, cwd: string): string {
  if (name.startsWith('.') || isAbsolute(name)) return pathToFileURL(resolve(cwd, name)).href;
  try {
    return pathToFileURL(createRequire(join(cwd, 'noop.js')).resolve(name)).href;
  } catch {
    return name; // ESM-only packages: let import() resolve it
  }
}

function registerFrom(
  registry: NodeRegistry,
  exports: Record<string, unknown>,
  name: string,
  functions: FunctionRegistry | undefined,
): void {
  for (const candidate of [exports, exports.default]) {
    if (typeof candidate !== 'object' && typeof candidate !== 'function') continue;
    const mod = candidate as Record<string, unknown>;
    const registered = registerFunctionsFrom(mod, functions);
    const register = mod.register ?? mod.registerAll;
    if (typeof register === 'function') {
      (register as (r: NodeRegistry) => void)(registry);
      return;
    }
    if (Array.isArray(mod.nodes)) {
      for (const def of mod.nodes as NodeDefinition[]) registry.register(def);
      return;
    }
    if (registered) return;
  }
  throw new Error(
    `module '${name}' exports neither register(registry), registerAll(registry), a nodes array nor functions`,
  );
}

/** A module's `$F` functions; true when it exports any (even if no registry wants them). */
function registerFunctionsFrom(
  mod: Record<string, unknown>,
  functions: FunctionRegistry | undefined,
): boolean {
  if (typeof mod.registerFunctions === 'function') {
    if (functions) (mod.registerFunctions as (f: FunctionRegistry) => void)(functions);
    return true;
  }
  if (typeof mod.functions === 'object' && mod.functions !== null) {
    for (const [fnName, fn] of Object.entries(mod.functions as Record<string, unknown>))
      if (functions && typeof fn === 'function')
        functions.register(fnName, fn as ExpressionFunction, { override: true });
    return true;
  }
  return false;
}
