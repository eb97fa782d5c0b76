import type { NodeContext } from '../../flow/node-type.js';

/** The original's rule for its side-effecting nodes: their own `dry_run`, or `$GLOBAL.dry_run`. */
export function isDryRun(ctx: NodeContext<{ dryRun: boolean }>): boolean {
  const globals = ctx.get('$GLOBAL') as Record<string, unknown> | undefined;
  return ctx.def.dryRun || globals?.dry_run === true;
}
