import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/**
 * What the subprocess nodes (the Python backend, `capture`) share: reading a stream with a
 * cap, and killing a child's whole process group. Children are spawned `detached`, which makes
 * each the leader of its own group, so one kill reaches whatever it started too.
 */
export interface Collected {
  text(): string;
  /** True when the stream gave more than the cap (the rest was read and dropped). */
  readonly truncated: boolean;
}

/** Reads a stream to the end, keeping at most `limit` bytes; `onOverflow` once past it. */
export function collect(stream: Readable, limit: number, onOverflow?: () => void): Collected {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  stream.on('data', (chunk: Buffer) => {
    if (kept + chunk.length <= limit) {
      chunks.push(chunk);
      kept += chunk.length;
      return;
    }
    if (kept < limit) {
      chunks.push(chunk.subarray(0, limit - kept));
      kept = limit;
    }
    if (!truncated) {
      truncated = true;
      onOverflow?.();
    }
  });
  stream.on('error', () => undefined);
  return {
    text: () => Buffer.concat(chunks).toString('utf8'),
    get truncated() {
      return truncated;
    },
  };
}

/** SIGKILLs the child's process group (and the child itself, should the group be gone). */
export function killGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined || pid <= 1) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** The reason an aborted signal carries, as an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the node was aborted');
}
