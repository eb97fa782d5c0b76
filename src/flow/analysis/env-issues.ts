import { secretEnvStatus } from '../secret-env.js';
import { closestName } from './closest-name.js';
import type { RootRead } from './expression-checker.js';
import type { FlowIssue } from './flow-issue.js';
import { type FlowScope, pathTo } from './flow-scope.js';

/**
 * docs/flow-format.md §5.4: a secret-looking name in `exposeEnv`. One with a sensitive prefix is
 * left out of `$ENV` unless the operator allows it; any other is exposed, and so in every
 * checkpoint. The analysis does not know the operator of the host that will run the flow.
 */
export function exposeEnvIssues(scope: FlowScope): FlowIssue[] {
  const doc = scope.flow.document;
  const key = doc.exposeEnv !== undefined && doc.exposeEnv !== null ? 'exposeEnv' : 'expose_env';
  return scope.flow.exposeEnv.flatMap((name, i) => {
    const status = secretEnvStatus(name, []);
    if (status === null) return [];
    const message =
      status === 'withheld'
        ? `exposeEnv lists "${name}", which looks like a secret: $ENV leaves it out, so ` +
          `$ENV.${name} reads null, unless the operator allows the name (PLAITA_EXPOSE_SECRET_ENV)`
        : `exposeEnv lists "${name}", which looks like a secret: every expression can read it ` +
          'and it is stored in checkpoints';
    return [
      {
        severity: 'warning' as const,
        code: 'secret_env_exposed' as const,
        path: pathTo(scope.prefix, key, i),
        nodeId: null,
        message,
      },
    ];
  });
}

/**
 * `$ENV.<NAME>` holds only the names `exposeEnv` lists; anything else reads null. A child flow
 * has its own list, but a null field falls back to its parent (§5.5), so the chain counts.
 */
export function envReadIssues(
  scope: FlowScope,
  reads: readonly RootRead[],
  nodeId: string,
): FlowIssue[] {
  const exposed = new Set<string>();
  for (let s: FlowScope | null = scope; s !== null; s = s.enclosing)
    for (const name of s.flow.exposeEnv) exposed.add(name);
  return reads
    .filter((read) => !exposed.has(read.name))
    .map((read) => {
      const suggestion = closestName(read.name, exposed);
      return {
        severity: 'warning' as const,
        code: 'env_not_exposed' as const,
        path: read.path,
        nodeId,
        message:
          `$ENV.${read.name} always reads null: "${read.name}" is not in exposeEnv` +
          (suggestion === undefined ? '' : `; did you mean $ENV.${suggestion}?`),
        ...(suggestion === undefined ? {} : { suggestion }),
      };
    });
}
