import { ExecutionExistsError, FenceRejectedError } from '../../errors/store-errors.js';

/**
 * The rejection of a fenced save, telling apart an execution that is not there (never saved,
 * deleted, expired) from a lease generation that moved on. `current` is null when absent.
 */
export function fenceRejected(
  executionId: string,
  current: number | null,
  fence: number,
): FenceRejectedError {
  const reason =
    current === null
      ? 'the execution does not exist'
      : `its lease generation is ${current}, not ${fence}`;
  return new FenceRejectedError(`fenced save of ${executionId} rejected: ${reason}`, {
    executionId,
  });
}

/** The refusal of a create-only save: the execution is already stored (SaveOptions.createOnly). */
export function alreadyStored(executionId: string): ExecutionExistsError {
  return new ExecutionExistsError(`execution ${executionId} already exists: nothing written`, {
    executionId,
  });
}
