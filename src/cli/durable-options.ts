import type { Command } from 'commander';
import { cliRegistry } from './flow-args.js';
import { existsSync } from 'node:fs';
import { CliError, EXIT } from './exit-codes.js';
import { openRuntime, type Runtime } from './runtime.js';
import { storeTarget } from './store-url.js';

export interface DurableFlags {
  store?: string;
  redisUrl?: string;
  tenant?: string;
  nodes?: string;
  queue?: string;
}

/** The options every command that touches executions shares; each also reads a PLAITA_* variable. */
export function withDurableOptions(command: Command): Command {
  return command
    .option(
      '--store <url>',
      'memory | sqlite:PATH | postgres://… | redis://… | redis+cluster://h1:7000,h2:7001 (PLAITA_STORE; default sqlite:./.plaita/plaita.db)',
    )
    .option(
      '--redis-url <url>',
      'Redis for the task queue, redis://… or redis+cluster://h1:7000,h2:7001 (PLAITA_REDIS_URL, PLAITA_REDIS_CLUSTER); without it the embedded queue in the SQLite file is used',
    )
    .option('--queue <name>', 'Redis stream name (PLAITA_QUEUE; default plaita:tasks)')
    .option('--tenant <id>', 'tenant (PLAITA_TENANT; default "default")', process.env.PLAITA_TENANT)
    .option(
      '--nodes <modules>',
      'comma-separated plugin modules to load (also PLAITA_NODE_MODULES)',
    );
}

export async function runtimeFor(
  flags: DurableFlags,
  extra: { embedded?: boolean; waitForServices?: boolean; visibilityTimeoutMs?: number } = {},
): Promise<Runtime> {
  const registry = await cliRegistry(flags.nodes);
  return openRuntime(
    {
      store: flags.store,
      redisUrl: flags.redisUrl,
      queueName: flags.queue,
      tenantId: flags.tenant,
      ...extra,
    },
    registry,
  );
}

/**
 * Opens the runtime, runs `body`, always closes (connections must never keep the CLI alive).
 * Only a command that writes new work (`createsStore`: run, start) may make a SQLite file: one
 * that reads or acts on what is stored would otherwise make an empty one at a mistyped path, or
 * in the wrong folder, and answer "nothing here" from it.
 */
export async function withRuntime<T>(
  flags: DurableFlags,
  body: (runtime: Runtime) => Promise<T>,
  { createsStore = false, ...extra }: { embedded?: boolean; createsStore?: boolean } = {},
): Promise<T> {
  if (!createsStore) requireExistingStore(flags);
  const runtime = await runtimeFor(flags, extra);
  try {
    return await body(runtime);
  } finally {
    await runtime.close();
  }
}

/** A SQLite store must exist already (see withRuntime); `why` says what the command needed from it. */
export function requireExistingStore(
  flags: DurableFlags,
  why = 'nothing has run with it yet',
): void {
  const target = storeTarget(flags.store);
  if (target.kind === 'sqlite' && !existsSync(target.path))
    throw new CliError(
      `no store at ${target.path}: ${why}; run this where your flows ran, or pass their --store`,
      EXIT.usage,
    );
}

/** `--store memory` for a command whose whole point is what it leaves stored: `why` it is useless. */
export function refuseMemoryStore(flags: DurableFlags, why: string): void {
  if (storeTarget(flags.store).kind === 'memory')
    throw new CliError(
      `--store memory keeps nothing once this command exits: ${why}; use sqlite:PATH, postgres://… or redis://…`,
      EXIT.usage,
    );
}
