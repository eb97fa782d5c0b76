import { connect, type Socket } from 'node:net';

/**
 * MONITOR on a plain socket: every command the server runs, one line each, in order. ioredis's
 * own `monitor()` can take a line that arrives with MONITOR's OK for a command reply and throw
 * "Command queue state error" when the shared server is busy with other tests' traffic.
 */
export interface RedisMonitor {
  /** The lines seen so far (`+<time> [<db> <client>] "COMMAND" "arg" …`). */
  readonly lines: string[];
  close(): void;
}

export async function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port || 6379), hostname || '127.0.0.1');
  const lines: string[] = [];
  let pending = '';
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\r\n')) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 2);
      if (line === '+OK') started();
      else lines.push(line);
    }
  });
  socket.write('MONITOR\r\n');
  await ready;
  return { lines, close: () => socket.destroy() };
}
