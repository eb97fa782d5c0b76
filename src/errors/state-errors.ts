/** What the state codec refuses: a value it cannot encode, a state too large, bytes it cannot read. */
import { type ErrorRecord, PlaitaError, type PlaitaErrorOptions } from './plaita-error.js';

/** A value in the state cannot be encoded losslessly (function, symbol, cycle, class instance...). */
export class StateSerializationError extends PlaitaError {
  override readonly name = 'StateSerializationError';
  readonly code = 'state_not_serializable';
  readonly retryable = false;
  /** Where the offending value sits, e.g. `$NODE.fetch.result.client`. */
  readonly path: string;
  /** What the offending value is, e.g. `function`, `cycle`, `class Socket`. */
  readonly valueType: string;

  constructor(path: string, valueType: string, options: PlaitaErrorOptions = {}) {
    super(`cannot store the value at ${path}: ${valueType} is not serializable`, options);
    this.path = path;
    this.valueType = valueType;
  }

  override toRecord(): ErrorRecord {
    return { ...super.toRecord(), details: { path: this.path, valueType: this.valueType } };
  }
}

export interface LargestEntry {
  path: string;
  bytes: number;
}

/** The encoded state exceeds `maxStateBytes`. */
export class StateTooLargeError extends PlaitaError {
  override readonly name = 'StateTooLargeError';
  readonly code = 'state_too_large';
  readonly retryable = false;
  readonly bytes: number;
  readonly limitBytes: number;
  readonly largest: readonly LargestEntry[];

  constructor(
    bytes: number,
    limitBytes: number,
    largest: readonly LargestEntry[],
    options: PlaitaErrorOptions = {},
  ) {
    const named = largest.map((e) => `${e.path} (${e.bytes} bytes)`).join(', ');
    super(
      `the encoded state is ${bytes} bytes, over the limit of ${limitBytes}` +
        (named ? `; largest entries: ${named}` : ''),
      options,
    );
    this.bytes = bytes;
    this.limitBytes = limitBytes;
    this.largest = largest;
  }

  override toRecord(): ErrorRecord {
    return {
      ...super.toRecord(),
      details: { bytes: this.bytes, limitBytes: this.limitBytes, largest: [...this.largest] },
    };
  }
}

/** Stored bytes are not a valid encoding: retrying the read will not help. */
export class StateCorruptError extends PlaitaError {
  override readonly name = 'StateCorruptError';
  readonly code = 'state_corrupt';
  readonly retryable = false;
}
