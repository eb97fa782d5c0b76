// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The layers of src/, lowest first: a folder (or file) imports only from the layers below its
 * own. The members of one layer are independent: they never import each other. Every entry of
 * src/ is either in a layer or a package entry point; linting stops if one is in neither.
 */
const LAYERS = [
  // One file per family of error classes; they import nothing but each other.
  ['errors'],
  ['util'],
  ['expression'],
  ['flow'],
  ['state'],
  ['nodes'],
  ['engine'],
  // The store and queue interfaces and the planning the stores share; no technology.
  ['store', 'queue'],
  // One folder per technology (memory, sqlite, postgres, redis): its connection, scripts,
  // migrations, stores and queue. Only entry points, the CLI and tests pick one; see BACKENDS_ZONE.
  ['backends'],
  ['worker', 'client'],
  ['control'],
  ['server'],
  ['cli'],
];

/** The package's entry points (`exports` and `bin`), as their sources: for users, never imported inside. */
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const entryOf = (/** @type {string} */ dist) => dist.replace(/^\.\/dist\/(.+)\.js$/, '$1.ts');
const LIBRARY_ENTRIES = Object.values(pkg.exports)
  .map((e) => (typeof e === 'object' ? e.import : e))
  .filter((p) => p.startsWith('./dist/'))
  .map(entryOf);
const BIN_ENTRIES = Object.values(pkg.bin).map(entryOf);

const unplaced = readdirSync(new URL('./src', import.meta.url)).filter(
  (name) =>
    !name.startsWith('.') && ![...LAYERS.flat(), ...LIBRARY_ENTRIES, ...BIN_ENTRIES].includes(name),
);
if (unplaced.length > 0)
  throw new Error(
    `eslint.config.js: place src/${unplaced.join(', src/')} in LAYERS (or package.json exports)`,
  );

const src = (/** @type {string} */ name) => `./src/${name}`;
const layerIndex = (/** @type {string} */ name) =>
  LAYERS.findIndex((layer) => layer.includes(name));

/** Each member of each layer: nothing from the layers above it, nothing from its peers. */
const LAYER_ZONES = LAYERS.flatMap((layer, i) =>
  layer.map((name) => {
    const peers = layer.filter((peer) => peer !== name);
    const notPeers = peers.map((peer) => `, not from its peer src/${peer}`).join('');
    return {
      target: src(name),
      from: [...LAYERS.slice(i + 1).flat(), ...peers].map(src),
      message: `src/${name} imports only from the layers below it${notPeers} (LAYERS in eslint.config.js).`,
    };
  }),
).filter((zone) => zone.from.length > 0);

/**
 * Backends store executions and carry tasks; they know nothing of how flows run: between util
 * and the interfaces they implement, they import only the execution state.
 */
const BACKENDS_ZONE = {
  target: src('backends'),
  from: LAYERS.slice(layerIndex('util') + 1, layerIndex('store'))
    .flat()
    .filter((name) => name !== 'state')
    .map(src),
  message: 'src/backends imports only errors, util, state and the store and queue interfaces.',
};

/**
 * A backend is chosen where the program is assembled (the entry points, the CLI, tests): the
 * layers between them run on the interfaces alone.
 */
const ASSEMBLY_ZONE = {
  target: LAYERS.slice(layerIndex('backends') + 1, layerIndex('cli'))
    .flat()
    .map(src),
  from: src('backends'),
  message:
    'Only the entry points and the CLI pick a backend; src/backends is imported nowhere else.',
};

const ZONES = [
  ...LAYER_ZONES,
  BACKENDS_ZONE,
  ASSEMBLY_ZONE,
  {
    target: './src',
    from: [...LIBRARY_ENTRIES, ...BIN_ENTRIES].map(src),
    message: 'Entry points are for users (package.json exports and bin), never imported inside.',
  },
  // Only the `plaita` binary starts the CLI; the library entry points never import it.
  {
    target: LIBRARY_ENTRIES.map(src),
    from: src('cli'),
    message: 'Only the plaita binary (package.json bin) imports the CLI.',
  },
  // The console is a browser app that talks to the server only through the public /v1
  // API: it shares no module with src/, and nothing in src/ imports it.
  { target: './console', from: ['./src', './test', './bench', './scripts'] },
  { target: './src', from: './console' },
];

/** What Node gives the repository's JavaScript files (scripts, benchmarks) beyond the language. */
const SCRIPT_GLOBALS = [
  'process',
  'console',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'performance',
  'URL',
  'Buffer',
  'fetch',
];

export default tseslint.config(
  {
    // .tmp/: git-ignored scratch, where test/lint plants its violations.
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'schema/**',
      'test-results/**',
      '.tmp/**',
    ],
  },
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
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: ZONES }],
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
      globals: Object.fromEntries(SCRIPT_GLOBALS.map((name) => [name, 'readonly'])),
    },
  },
  {
    // The code sandbox's scripts (src/nodes/code/sandbox/): evaluated by QuickJS as global
    // scripts, with the language's intrinsics only (no Node, no browser), and type-checked with
    // their own tsconfig.json.
    files: ['src/nodes/code/sandbox/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(SCRIPT_GLOBALS.map((name) => [name, 'off'])),
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
