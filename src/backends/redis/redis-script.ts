import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { classifyRedisError } from './classify-redis-error.js';
import type { RedisClient } from './redis-connection.js';
import { sendScript } from './send-script.js';

export type ScriptArg = string | number;

/**
 * One Lua script, read from `<name>.lua` in `dir` (the folder of the module that owns it: each
 * script sits beside its store or queue, and the build copies them to `dist/`), run by EVALSHA. When the server answers NOSCRIPT (its script cache was flushed,
 * or a failover promoted a replica that never saw the script), it is sent again by EVAL,
 * which also caches it, so the next call is an EVALSHA hit again.
 *
 * `keyCount` is fixed per script (or `'variadic'` when the caller passes any number of keys)
 * so a call can never shift a KEYS entry into ARGV.
 */
export class RedisScript {
  /** Every script built (they are module constants): what {@link preloadScripts} loads. */
  static readonly all = new Set<RedisScript>();
  #source: { text: string; sha: string } | undefined;

  /**
   * `include`: names of `.lua` files in the same folder whose text goes before this script's
   * (shared local functions: Redis scripts cannot load one another).
   */
  constructor(
    readonly name: string,
    readonly keyCount: number | 'variadic',
    private readonly dir: URL,
    private readonly include: readonly string[] = [],
  ) {
    RedisScript.all.add(this);
  }

  /** The script text (read once, at first use). */
  get source(): { text: string; sha: string } {
    if (!this.#source) {
      const text = [...this.include, this.name]
        .map((name) => readFileSync(new URL(`./${name}.lua`, this.dir), 'utf8'))
        .join('\n');
      this.#source = { text, sha: createHash('sha1').update(text).digest('hex') };
    }
    return this.#source;
  }

  run(client: RedisClient, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    if (this.keyCount !== 'variadic' && keys.length !== this.keyCount) {
      return Promise.reject(
        new RangeError(`${this.name}.lua takes ${this.keyCount} keys, got ${keys.length}`),
      );
    }
    const { text, sha } = this.source;
    // The NOSCRIPT fallback is chained on, not awaited: no async frame per script call.
    return sendScript(client, 'evalsha', sha, keys, args).catch((error: unknown) => {
      if (classifyRedisError(error) !== 'noscript') throw error;
      return sendScript(client, 'eval', text, keys, args);
    });
  }
}

/**
 * Loads every known script into one node's cache (SCRIPT LOAD), so the first EVALSHA on a
 * cluster master, or on a replica just promoted, is a hit. An optimisation only: a node that
 * misses a script still answers NOSCRIPT and `run` sends it by EVAL. Failures are the caller's
 * to ignore.
 */
export async function preloadScripts(node: {
  script(subcommand: 'LOAD', text: string): Promise<unknown>;
}): Promise<void> {
  await Promise.all([...RedisScript.all].map((script) => node.script('LOAD', script.source.text)));
}
