/** The CLI's exit-code table, row by row: typed errors by `code` along `cause`, the rest unknown. */
import { describe, expect, it } from 'vitest';
import { FlowDefinitionMissingError } from '../../src/errors/flow-definition-errors.js';
import { InputRejectedError, UnknownExecutionError } from '../../src/errors/execution-errors.js';
import { StateCorruptError } from '../../src/errors/state-errors.js';
import { StoreConfigurationError, StoreUnavailableError } from '../../src/errors/store-errors.js';
import { TerminalError, RetryableError } from '../../src/errors/node-errors.js';
import { failureExit } from '../../src/cli/failure-exit.js';

describe('failureExit', () => {
  it.each([
    ['StoreUnavailableError', new StoreUnavailableError('down'), 3],
    ['StoreConfigurationError', new StoreConfigurationError('no such database'), 2],
    ['InputRejectedError input_too_deep', new InputRejectedError('input_too_deep', 'x', 'deep'), 2],
    [
      'InputRejectedError payload_too_large',
      new InputRejectedError('payload_too_large', 'x', 'big'),
      2,
    ],
    ['UnknownExecutionError', new UnknownExecutionError('no execution x'), 2],
    ['FlowDefinitionMissingError', new FlowDefinitionMissingError('gone'), 2],
    ['StateCorruptError', new StateCorruptError('bad bytes'), 1],
    ['a non-retryable code not in the table', new TerminalError('no', { code: 'custom' }), 2],
    ['a retryable code not in the table', new RetryableError('later'), 1],
  ])('%s exits %i', (_name, error, exitCode) => {
    expect(failureExit(error)).toEqual({ exitCode, error });
  });

  it('walks the cause chain to the first code it knows', () => {
    const cause = new StoreUnavailableError('down');
    const wrapped = new Error('while listing', { cause: new TerminalError('x', { cause }) });
    expect(failureExit(wrapped)).toEqual({ exitCode: 3, error: cause });
  });

  it('an untyped error (a driver error with a code, a bug) is not classified', () => {
    expect(failureExit(Object.assign(new Error('boom'), { code: 'ENOENT' }))).toBeUndefined();
    expect(failureExit(new TypeError('x is undefined'))).toBeUndefined();
    expect(failureExit('a string')).toBeUndefined();
  });
});
