import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as plaita from '../src/index.js';
import { PlaitaError, StateSerializationError, toErrorRecord } from '../src/index.js';

/** Flow-level failures keep the original's numeric codes (docs/public-surface.md): they are not runtime errors. */
const FLOW_FAMILY = new Set(['FlowError', 'NodeError', 'FlowResultError']);

describe('runtime errors', () => {
  const errorClasses = Object.entries(plaita).filter(
    ([name, value]) =>
      typeof value === 'function' && value.prototype instanceof Error && !FLOW_FAMILY.has(name),
  ) as Array<[string, new (...args: never[]) => Error]>;

  it('every exported error class extends PlaitaError and is named after itself', () => {
    expect(errorClasses.length).toBeGreaterThan(15);
    for (const [name, ErrorClass] of errorClasses) {
      expect(ErrorClass.prototype instanceof PlaitaError || name === 'PlaitaError', name).toBe(
        true,
      );
      expect(name.endsWith('Error'), name).toBe(true);
    }
  });

  it('toErrorRecord keeps a PlaitaError whole and summarises anything else', () => {
    expect(toErrorRecord(new StateSerializationError('$NODE.a', 'function'))).toMatchObject({
      code: 'state_not_serializable',
      retryable: false,
      details: { path: '$NODE.a', valueType: 'function' },
    });
    expect(
      toErrorRecord(Object.assign(new Error('busy'), { code: 'ECONNRESET', retryable: true })),
    ).toEqual({ code: 'ECONNRESET', name: 'Error', message: 'busy', retryable: true });
    expect(toErrorRecord('a string')).toEqual({
      code: 'internal_error',
      name: 'string',
      message: 'a string',
      retryable: false,
    });
  });
});

/**
 * Error classes that stay beside the one module that throws and catches them: private control
 * flow, a driver's reply imitated, or a class built from that module's own types.
 */
const KEPT_NEAR = new Set([
  'engine/budget.ts BudgetAbort',
  'nodes/io/read-limited-body.ts ResponseTooLargeError',
  'server/problem.ts ApiProblem',
  'server/flows/dry-run-threads.ts DryRunThreadTimeout',
  'control/bulk/bulk-runner.ts LeaseLost',
  'cli/exit-codes.ts CliError',
  'backends/redis/classify-redis-error.ts CaughtReplyError',
  'backends/postgres/postgres-connection.ts ConnectTimeout',
  'backends/postgres/postgres-connection.ts OperationTimeout',
]);

describe('where error classes live', () => {
  const src = join(import.meta.dirname, '..', 'src');

  it('every error class is in src/errors/, one file per family, but the few kept near', () => {
    const outside: string[] = [];
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const path = relative(src, join(entry.parentPath, entry.name));
      if (path.startsWith('errors/')) continue;
      const text = readFileSync(join(src, path), 'utf8');
      for (const [, name] of text.matchAll(
        /^(?:export )?(?:abstract )?class (\w+) extends \w*Error\b/gm,
      ))
        if (!KEPT_NEAR.has(`${path} ${name}`)) outside.push(`${path} ${name}`);
    }
    expect(outside).toEqual([]);
  });
});
