import { readFileSync } from 'node:fs';

/** The package's version (package.json beside dist/), for heartbeats and `--version`. */
export function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
