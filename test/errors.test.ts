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
