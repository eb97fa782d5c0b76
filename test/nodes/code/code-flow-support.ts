import {
  createDefaultRegistry,
  parseFlow,
  runFlow,
  type Flow,
  type RuntimeLimits,
} from '../../../src/index.js';

/** A flow start → the given code node (id `c`) → end returning its result. */
export function codeFlow(node: Record<string, unknown>, limits: Partial<RuntimeLimits> = {}): Flow {
  return parseFlow(
    {
      flow_id: 'code-test',
      nodes: [
        { type: 'start', id: 's', next: 'c' },
        { type: 'code', id: 'c', next: 'e', ...node },
        { type: 'end', id: 'e', output: '$NODE.c' },
      ],
    },
    { registry: createDefaultRegistry({ limits }) },
  );
}

/** Runs a one-code-node flow under `limits` (given to the registry and the engine alike). */
export function runCode(
  node: Record<string, unknown>,
  input: unknown = {},
  limits: Partial<RuntimeLimits> = {},
): Promise<unknown> {
  return runFlow(codeFlow(node, limits), input, { limits });
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function failure(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    const value = await promise;
    throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
  } catch (error) {
    return error as Record<string, unknown>;
  }
}
