import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { sendScript } from '../../store/redis/send-script.js';

/**
 * One Lua script of this folder, run by EVALSHA; a server that does not have it cached yet
 * (first use, restart, SCRIPT FLUSH, failover) answers NOSCRIPT and gets the source once.
 * Scripts are read at construction from a `.lua` file beside the module (the build copies
 * them to `dist/`).
 */
export class LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha1: string;

  constructor(file: URL) {
    this.name = basename(fileURLToPath(file));
    this.source = readFileSync(file, 'utf8');
    this.sha1 = createHash('sha1').update(this.source).digest('hex');
  }

  run(
    client: Redis,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    // The fallback is chained on, not awaited: no async frame per script call (acks are hot).
    return sendScript(client, 'evalsha', this.sha1, keys, args).catch((error: unknown) => {
      if (!isNoScript(error)) throw error;
      // EVAL also caches the script, so the next EVALSHA succeeds.
      return sendScript(client, 'eval', this.source, keys, args);
    });
  }
}

function isNoScript(error: unknown): boolean {
  // A Redis error reply starts with its code: NOSCRIPT is the documented signal for a cache miss.
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
