import { SECRET_LOOKING } from '../env-warnings.js';
import { closestName } from './closest-name.js';
import type { RootRead } from './expression-checker.js';
import type { FlowIssue } from './flow-issue.js';
import { type FlowScope, pathTo } from './flow-scope.js';

/** docs/flow-format.md §5.4: exposing a secret-looking variable puts it in every checkpoint. */
export function exposeEnvIssues(scope: FlowScope): FlowIssue[] {
  const doc = scope.flow.document;
  const key = doc.exposeEnv !== undefined && doc.exposeEnv !== null ? 'exposeEnv' : 'expose_env';
  return scope.flow.exposeEnv.flatMap((name, i) =>
    SECRET_LOOKING.test(name)
      ? [
          {
            severity: 'warning' as const,
            code: 'secret_env_exposed' as const,
            path: pathTo(scope.prefix, key, i),
            nodeId: null,
            message:
              `exposeEnv lists "${name}", which looks like a secret: every expression can read it ` +
              'and it is stored in checkpoints',
          },
        ]
      : [],
  );
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
