import { createRequire } from 'node:module';
import { PeerDependencyMissingError } from '../errors/store-errors.js';

/**
 * The optional peer dependencies and the range each is declared with in package.json
 * (`peerDependencies`; a test keeps the two equal). None is loaded by `import 'plaita'`.
 */
export const OPTIONAL_PEERS = {
  'better-sqlite3': '^12.11.1',
  pg: '^8.23.1',
  ioredis: '^5.11.1',
  'prom-client': '^15.1.3',
} as const;

export type OptionalPeer = keyof typeof OPTIONAL_PEERS;

// Resolved from plaita's own location, as a static import would be. All four are CommonJS.
const requirePeer = createRequire(import.meta.url);

/**
 * Loads an optional peer dependency synchronously, when `requiredBy` (e.g. `SqliteExecutionStore`)
 * is built rather than when plaita is imported. A package that cannot be resolved is a
 * PeerDependencyMissingError naming the package and the install command; a package that is
 * there but fails to load (a native build for another Node version) rethrows as it is.
 */
export function loadOptionalPeer<T>(name: OptionalPeer, requiredBy: string): T {
  let path: string;
  try {
    path = requirePeer.resolve(name);
  } catch (error) {
    throw new PeerDependencyMissingError(
      name,
      `${requiredBy} needs the optional peer dependency ${name}, which is not installed: ` +
        `npm install ${name}@${OPTIONAL_PEERS[name]}`,
      { cause: error },
    );
  }
  return requirePeer(path) as T;
}
