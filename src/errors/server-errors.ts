/** What starting the server fails with before any request is answered. */
import { PlaitaError } from './plaita-error.js';

/** The port could not be listened on (taken, not allowed). */
export class ListenError extends PlaitaError {
  override readonly name = 'ListenError';
  readonly code = 'listen_failed';
  readonly retryable = false;
}
