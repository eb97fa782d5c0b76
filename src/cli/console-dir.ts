import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built console (`dist/console`, beside the CLI), or null when it was not built. */
export function consoleDirectory(): string | null {
  const dir = fileURLToPath(new URL('../console/', import.meta.url));
  return existsSync(`${dir}index.html`) ? dir : null;
}
