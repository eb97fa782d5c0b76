// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'schema/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='eval']",
          message: 'No eval: expressions are parsed.',
        },
        { selector: "NewExpression[callee.name='Function']", message: 'No new Function.' },
      ],
      // No depth bound: a longer cycle is as real as a short one, and the walk costs seconds.
      // Packages cannot import us back, so the walk stays inside the repository.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            // Nothing imports the CLI; the pure layers never reach up into the runtime.
            { target: './src', from: './src/cli', except: ['./'] },
            // The package entry points (package.json `exports`) are for users, never imported inside.
            {
              target: './src',
              from: [
                './src/index.ts',
                './src/sqlite.ts',
                './src/postgres.ts',
                './src/redis.ts',
                './src/worker.ts',
              ],
            },
            // Backends (connections, script loader, error classifiers, migrations per technology)
            // serve the stores and queues; they import only errors, util and each other.
            {
              target: './src/backends',
              from: [
                './src/store',
                './src/queue',
                './src/worker',
                './src/client',
                './src/engine',
                './src/nodes',
                './src/flow',
                './src/expression',
                './src/state',
                './src/server',
              ],
            },
            {
              target: './src/engine',
              from: [
                './src/store',
                './src/queue',
                './src/worker',
                './src/client',
                './src/backends',
              ],
            },
            {
              target: './src/nodes',
              from: [
                './src/engine',
                './src/store',
                './src/queue',
                './src/worker',
                './src/client',
                './src/backends',
              ],
            },
            {
              target: './src/expression',
              from: ['./src/nodes', './src/engine', './src/flow', './src/store'],
            },
            {
              target: './src/state',
              from: [
                './src/store',
                './src/queue',
                './src/worker',
                './src/client',
                './src/backends',
              ],
            },
            // Stores and queues share backend code through src/backends, never through each other
            // (store/shared is for the stores; the queues have their own messages and scripts).
            {
              target: './src/queue',
              from: [
                './src/store/memory',
                './src/store/sqlite',
                './src/store/postgres',
                './src/store/redis',
                './src/store/shared',
                './src/store/sql',
                './src/worker',
                './src/client',
              ],
            },
            { target: './src/store', from: ['./src/queue', './src/worker', './src/client'] },
            // The console is a browser app that talks to the server only through the public /v1
            // API: it shares no module with src/, and nothing in src/ imports it.
            { target: './console', from: ['./src', './test', './bench', './scripts'] },
            { target: './src', from: './console' },
          ],
        },
      ],
    },
    settings: {
      // import-x reads (for no-cycle, named, …) only files with these extensions; without `.ts`
      // every TypeScript dependency is skipped and no-cycle silently finds nothing.
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      // Our imports name the emitted `.js`; the resolver must find the `.ts` beside it, or every
      // relative import is unresolved and the path rules below check nothing.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.js'] },
        }),
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'performance',
          'URL',
          'Buffer',
          'globalThis',
          'fetch',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // The web console (console/): browser code, type-checked with console/tsconfig.json.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'navigator',
          'localStorage',
          'location',
          'history',
          'fetch',
          'EventSource',
          'ResizeObserver',
          'URL',
          'URLSearchParams',
          'getComputedStyle',
          'setTimeout',
          'clearTimeout',
          'console',
          'Intl',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
