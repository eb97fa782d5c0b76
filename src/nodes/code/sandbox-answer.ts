import { CodeError, CodeOutputTooLargeError } from '../../errors/code-errors.js';
import { StateSerializationError } from '../../errors/state-errors.js';
import { decodeValue } from '../../state/codec.js';

/** What a run answered (see sandbox/codec.js, `finish`). Failures are thrown as Code*Error. */
export type SandboxAnswer =
  | { kind: 'value'; text: string }
  | { kind: 'unstorable'; path: string; valueType: string }
  | { kind: 'too_large'; chars: number };

/** Reads the prelude's answer: a kind letter, then its body. */
export function parseAnswer(text: string): SandboxAnswer {
  const body = text.slice(1);
  switch (text[0]) {
    case 'v':
      return { kind: 'value', text: body };
    case 'o':
      return { kind: 'too_large', chars: Number(body) };
    case 'u': {
      const [path, valueType] = JSON.parse(body) as [string, string];
      return { kind: 'unstorable', path, valueType };
    }
    default:
      throw new CodeError('the sandbox answered something unexpected', { retryable: false });
  }
}

/** The run's result from the sandbox's answer (on the calling thread: it builds the value). */
export function decodeAnswer(answer: SandboxAnswer, run: { outputBytes: number }): unknown {
  switch (answer.kind) {
    case 'value':
      // The sandbox counts UTF-16 characters; the limit is of encoded bytes, as for Python
      // (at most 3 per character: a shorter text needs no count).
      if (answer.text.length > run.outputBytes / 3) {
        const bytes = Buffer.byteLength(answer.text);
        if (bytes > run.outputBytes)
          throw new CodeOutputTooLargeError(
            `the result is ${bytes} bytes once encoded, over the limit of ${run.outputBytes}`,
          );
      }
      try {
        return decodeValue(answer.text);
      } catch (error) {
        throw new CodeError('the sandbox returned a result the codec cannot read', {
          cause: error,
          retryable: false,
        });
      }
    case 'unstorable':
      throw new StateSerializationError(answer.path, answer.valueType);
    case 'too_large':
      throw new CodeOutputTooLargeError(
        `the result is ${answer.chars} characters once encoded, over the limit of ${run.outputBytes}`,
      );
  }
}

/** Name, message and stack of what the code threw, each capped (it becomes the stored error). */
export function describeThrown(dumped: unknown): { name: string; message: string; stack: string } {
  if (typeof dumped === 'object' && dumped !== null && 'message' in dumped) {
    const { name, message, stack } = dumped as {
      name?: unknown;
      message?: unknown;
      stack?: unknown;
    };
    return {
      name: typeof name === 'string' ? capped(name, 200) : 'Error',
      message: capped(String(message), MAX_MESSAGE_CHARS),
      stack: typeof stack === 'string' ? stack.slice(0, MAX_MESSAGE_CHARS) : '',
    };
  }
  let text: string;
  try {
    text = typeof dumped === 'string' ? dumped : (JSON.stringify(dumped) ?? String(dumped));
  } catch {
    text = String(dumped);
  }
  return { name: '', message: `the code threw ${capped(text, MAX_MESSAGE_CHARS)}`, stack: '' };
}

/**
 * The longest error message kept from the code: it becomes the execution's stored error, and a
 * results cap (codeOutputBytes) means little if a thrown message of megabytes goes through.
 */
const MAX_MESSAGE_CHARS = 4096;

function capped(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
