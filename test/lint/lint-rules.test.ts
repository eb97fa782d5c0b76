import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The import rules once passed everything (no-cycle skipped `.ts`, most folders had no zone):
 * these plant violations and expect them reported, so the rules cannot go quiet again.
 */
const root = join(import.meta.dirname, '..', '..');

/** The project's eslint.config.js running one rule, without type information (it needs none). */
function linterFor(rule: string): ESLint {
  return new ESLint({
    cwd: root,
    ignore: false, // the planted files sit in .tmp/, which `npm run lint` skips
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => ruleId === rule,
  });
}

function rulesOf(results: ESLint.LintResult[]): (string | null)[] {
  return results.flatMap((result) => result.messages.map((message) => message.ruleId));
}

/**
 * An import of some module in src/`folder`, as written in a sibling folder. A real one: the rules
 * pass an import they cannot resolve.
 */
function importOf(folder: string): string {
  const file = readdirSync(join(root, 'src', folder)).find((name) => /^[^.]+\.ts$/.test(name));
  if (file === undefined) throw new Error(`no module in src/${folder}`);
  return `import '../${folder}/${file.replace(/\.ts$/, '.js')}';\n`;
}

describe('import-x/no-cycle', () => {
  const eslint = linterFor('import-x/no-cycle');
  // Real files (the rule follows imports on disk), in the git-ignored .tmp/ so that a run
  // killed halfway leaves nothing that tsc, `npm run lint` or a commit would pick up.
  let dir: string;
  beforeAll(() => {
    mkdirSync(join(root, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(root, '.tmp', 'lint-cycle-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function lintChain(closed: boolean): Promise<(string | null)[]> {
    const files = ['a', 'b', 'c'].map((name) => join(dir, `${name}.ts`));
    writeFileSync(files[0]!, "import { b } from './b.js';\nexport const a = (): number => b();\n");
    writeFileSync(files[1]!, "import { c } from './c.js';\nexport const b = (): number => c();\n");
    writeFileSync(
      files[2]!,
      closed
        ? "import { a } from './a.js';\nexport const c = (): number => a();\n"
        : 'export const c = (): number => 1;\n',
    );
    return rulesOf(await eslint.lintFiles(files));
  }

  it('reports each file of a three-file cycle', async () => {
    expect(await lintChain(true)).toEqual(Array(3).fill('import-x/no-cycle'));
  });

  it('passes the same files as a chain', async () => {
    expect(await lintChain(false)).toEqual([]);
  });
});

describe('import-x/no-restricted-paths', () => {
  const eslint = linterFor('import-x/no-restricted-paths');
  /** The rules `text` breaks as the file `path` (relative to the repository; it need not exist). */
  async function rulesBroken(path: string, text: string): Promise<(string | null)[]> {
    return rulesOf(await eslint.lintText(text, { filePath: join(root, path) }));
  }

  const server = importOf('server');

  it.each([
    'util',
    'expression',
    'flow',
    'state',
    'nodes',
    'engine',
    'backends',
    'store',
    'queue',
    'worker',
    'client',
    'control',
  ])('reports src/%s importing server/', async (folder) => {
    expect(await rulesBroken(`src/${folder}/planted.ts`, server)).toEqual([
      'import-x/no-restricted-paths',
    ]);
  });

  it.each(['index', 'server', 'nodes', 'worker', 'redis', 'postgres', 'sqlite', 'cli'])(
    'reports an inside file importing the entry point src/%s.ts',
    async (entry) => {
      const text = `import '../${entry}.js';\n`;
      expect(await rulesBroken('src/engine/planted.ts', text)).toEqual([
        'import-x/no-restricted-paths',
      ]);
    },
  );

  it('reports the CLI imported by the server and by a library entry point', async () => {
    const cli = importOf('cli');
    expect(await rulesBroken('src/server/planted.ts', cli)).toEqual([
      'import-x/no-restricted-paths',
    ]);
    expect(await rulesBroken('src/index.ts', cli.replace('../', './'))).toEqual([
      'import-x/no-restricted-paths',
    ]);
  });

  it.each(['store', 'queue', 'worker', 'client', 'control', 'server'])(
    'reports src/%s importing a backend',
    async (folder) => {
      expect(await rulesBroken(`src/${folder}/planted.ts`, importOf('backends/redis'))).toEqual([
        'import-x/no-restricted-paths',
      ]);
    },
  );

  it('reports a backend importing the engine', async () => {
    expect(await rulesBroken('src/backends/planted.ts', importOf('engine'))).toEqual([
      'import-x/no-restricted-paths',
    ]);
  });

  it('passes an import from a lower layer', async () => {
    expect(await rulesBroken('src/server/planted.ts', importOf('util'))).toEqual([]);
    expect(await rulesBroken('src/cli/planted.ts', server)).toEqual([]);
    expect(await rulesBroken('src/cli/planted.ts', importOf('backends/redis'))).toEqual([]);
    expect(await rulesBroken('src/backends/planted.ts', importOf('store'))).toEqual([]);
  });
});
