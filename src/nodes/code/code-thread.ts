import { CodeError, CodeMemoryError, CodeTimeoutError } from '../../errors/code-errors.js';
import { serveThreadTasks } from '../../util/thread-task.js';
import { JavaScriptSandboxes, type SandboxRequest } from './javascript-sandboxes.js';
import type { ThreadAnswer } from './code-threads.js';

/**
 * The entry of a code thread (code-threads.ts): runs sandbox calls, keeping its own QuickJS
 * instance and warm sandboxes per tenant, and answers with the sandbox's answer or the failure's
 * kind, message and position (error classes do not cross threads).
 */
const sandboxes = new JavaScriptSandboxes();

serveThreadTasks(async (message): Promise<ThreadAnswer> => {
  try {
    return { ok: true, answer: await sandboxes.answer(message as SandboxRequest) };
  } catch (error) {
    if (error instanceof CodeTimeoutError)
      return { ok: false, kind: 'timeout', message: error.message };
    if (error instanceof CodeMemoryError)
      return { ok: false, kind: 'memory', message: error.message };
    if (error instanceof CodeError)
      return {
        ok: false,
        kind: 'code',
        message: error.message,
        retryable: error.retryable,
        ...(error.line !== undefined ? { line: error.line } : {}),
        ...(error.column !== undefined ? { column: error.column } : {}),
      };
    throw error;
  }
});
