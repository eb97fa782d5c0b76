// Preload (`node --import ./test/support/hide-optional-peers.mjs …`) that makes plaita's optional
// peer dependencies unresolvable, as in an install with `--omit=peer`: for `import` and
// `import()` through a module.register resolve hook, for `require` (plaita loads the drivers with
// createRequire, which Node 20's module hooks do not see) by wrapping Module._resolveFilename.
// Every attempt is recorded in globalThis.__hiddenPeerRequests (the CommonJS side).
import Module, { register } from 'node:module';

// HIDE_PEERS=name,name hides only those (say, prom-client alone for a server on SQLite).
const HIDDEN = process.env.HIDE_PEERS?.split(',') ?? [
  'pg',
  'ioredis',
  'better-sqlite3',
  'prom-client',
];
const HIDDEN_JSON = JSON.stringify(HIDDEN);

const hook = `
const HIDDEN = ${HIDDEN_JSON};
export async function resolve(specifier, context, next) {
  if (HIDDEN.some((name) => specifier === name || specifier.startsWith(name + '/'))) {
    const error = new Error("Cannot find package '" + specifier + "' (hidden by hide-optional-peers)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const requests = [];
globalThis.__hiddenPeerRequests = requests;
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (HIDDEN.some((name) => request === name || request.startsWith(`${name}/`))) {
    requests.push(request);
    const error = new Error(`Cannot find module '${request}' (hidden by hide-optional-peers)`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolveFilename.call(this, request, ...rest);
};
